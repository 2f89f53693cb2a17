//! `batch_write`: puts and deletes of any entities, in chunks of 25, from
//! the builder's own requests or streamed from an iterator or a `Stream` of
//! entities, converted as their chunk is built.

use super::seen::SeenKeys;
pub use super::write_chunk::{BatchWriteOutput, RefusedWrite, UnprocessedWrite};
use super::write_chunk::{Chunk, Chunks, Cut, NamedKey, Ready};
use crate::error::{Error, Result, ValidationError};
use crate::keys::KeyRef;
use crate::limits::{check_item_key, check_primary_key, BATCH_WRITE_CHUNK};
use crate::ops::managed::{checks_as_written, write_checked, Mode};
use crate::rate_limit::RateLimit;
use crate::scoping::{CrossTenant, Reaches, Scope, Unscoped};
use crate::Client;
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
use entity_core::{
    Entity, IndexModel, PrimaryKey, WithoutSoftDelete, WithoutUnique, WithoutVersion,
};
use futures::stream::{self, Stream, StreamExt};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// A BatchWriteItem of puts and deletes of any entities.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client, docs: Vec<Doc>) -> entity_client::Result<()> {
/// let out = client.batch_write().put_all(&docs).delete(Doc::key("old")).await?;
/// assert!(out.unprocessed.is_empty());
/// # Ok(()) }
/// ```
///
/// `put`, `put_all` and `delete` build their requests at once, and an error
/// in any of them (an entity that cannot be converted, a key named twice)
/// is the batch's error, before anything is sent. `put_iter` and
/// `put_stream` take owned entities and convert each one only when its
/// chunk is built, with at most the policy's
/// [`concurrency`](crate::BatchPolicy::concurrency) chunks in flight (and
/// one being built): a write of any size holds a few chunks in memory, not
/// every request. Their errors come per entity, in
/// [`BatchWriteOutput::refused`], since what came before is already
/// written.
#[must_use = "a request does nothing until it is awaited"]
pub struct BatchWrite<S = Unscoped> {
    client: Client,
    /// The scope of the client that started it: the plain client's, or
    /// `cross_tenant()`'s (a tenant's batch is a `TenantBatchWrite`).
    scope: std::marker::PhantomData<S>,
    /// What `put`, `put_all` and `delete` built, sent first.
    built: Chunk,
    /// What `put_iter` and `put_stream` will convert, in order, after them.
    sources: Vec<Box<dyn Source>>,
    /// Every key named so far: a repeat is refused (DynamoDB would).
    seen: SeenKeys,
    /// How the table is keyed (every entity of a table keys it alike).
    primary: Option<&'static IndexModel>,
    error: Option<Error>,
}

impl Client {
    /// Starts a batch of puts and deletes, of any entities.
    pub fn batch_write(&self) -> BatchWrite {
        self.batch_in()
    }
}

impl Client<CrossTenant> {
    /// Starts a batch of puts and deletes of any entities, tenant entities
    /// included, with no tenant check.
    pub fn batch_write(&self) -> BatchWrite<CrossTenant> {
        self.batch_in()
    }
}

impl<S: Scope> Client<S> {
    fn batch_in<T: Scope>(&self) -> BatchWrite<T> {
        BatchWrite {
            client: self.unscoped(),
            scope: std::marker::PhantomData,
            built: Chunk::with_capacity(0),
            sources: Vec::new(),
            seen: SeenKeys::default(),
            primary: None,
            error: None,
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> Error {
    ValidationError::InvalidRequest(e.to_string()).into()
}

/// Builds into `chunk` a whole item's put, with its managed fields stamped
/// as `put` stamps them (`created_at` kept as the entity holds it, or now
/// when unset), and refuses a key the batch has named.
fn put_into<E: WithoutUnique + WithoutVersion>(
    client: &Client,
    seen: &mut SeenKeys,
    chunk: &mut Chunk,
    entity: &E,
) -> Result<()> {
    let name = E::MODEL.name;
    let (item, named) = if const { checks_as_written::<E>() } {
        // Checked as it is written (keys written only by the derive's
        // composers): the item is not read again.
        let (item, named) = write_checked(entity, |key| name_key(seen, chunk, name, key))?;
        (item, named.transpose()?)
    } else {
        let stamped = crate::ops::managed::stamp(client, entity, Mode::Replace)?;
        (stamped.item, None)
    };
    let named = match named {
        Some(named) => named,
        None => match check_item_key(E::MODEL, &item)? {
            Some(key) => name_key(seen, chunk, name, key)?,
            // Only a hand-written `write_item` leaves the table key out: the
            // key the entity composes stands for it.
            None => name_key(seen, chunk, name, KeyRef::of(&entity.primary_key()))?,
        },
    };
    let put = PutRequest::builder()
        .set_item(Some(item))
        .build()
        .map_err(invalid)?;
    chunk.push(named, WriteRequest::builder().put_request(put).build());
    Ok(())
}

/// Notes a key the batch names (refused if it named it already), copied
/// into the chunk whose request names it.
fn name_key(
    seen: &mut SeenKeys,
    chunk: &mut Chunk,
    entity: &'static str,
    key: KeyRef<'_>,
) -> Result<NamedKey> {
    seen.insert(key)?;
    Ok(chunk.copy_key(entity, key))
}

impl<S: Scope> BatchWrite<S> {
    /// Builds a request now (`build` adds it to the chunk it is given); the
    /// first error is the batch's.
    fn build<E: Entity>(
        &mut self,
        build: impl FnOnce(&Client, &mut SeenKeys, &mut Chunk) -> Result<()>,
    ) {
        let Self {
            client,
            built,
            seen,
            primary,
            error,
            ..
        } = self;
        match build(client, seen, built) {
            Ok(()) => {
                primary.get_or_insert(&E::MODEL.primary);
            }
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }

    /// Writes a whole item, with its generated ids and timestamps filled in
    /// (`created_at` kept as the entity holds it, or now when unset).
    ///
    /// BatchWriteItem takes no conditions, so entities with an
    /// optimistic-lock version or unique constraints are refused at compile
    /// time: write those one by one or in a transaction.
    pub fn put<E: WithoutUnique + WithoutVersion>(mut self, entity: &E) -> Self
    where
        S: Reaches<E>,
    {
        self.build::<E>(|client, seen, chunk| put_into(client, seen, chunk, entity));
        self
    }

    /// Writes many whole items, building every request now. For a large
    /// write, [`put_iter`](Self::put_iter) and
    /// [`put_stream`](Self::put_stream) keep memory bounded.
    pub fn put_all<'a, E: WithoutUnique + WithoutVersion + 'a>(
        mut self,
        entities: impl IntoIterator<Item = &'a E>,
    ) -> Self
    where
        S: Reaches<E>,
    {
        let entities = entities.into_iter();
        let (expected, _) = entities.size_hint();
        self.built.reserve(expected);
        self.seen.reserve(expected);
        for entity in entities {
            self.build::<E>(|client, seen, chunk| put_into(client, seen, chunk, entity));
        }
        self
    }

    /// Writes the entities of an iterator, taken and converted as their
    /// chunk is built (see [`put_stream`](Self::put_stream)).
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let docs = (0..100_000).map(|i| Doc { id: format!("doc-{i}") });
    /// let out = client.batch_write().put_iter(docs).await?;
    /// assert_eq!(out.written, 100_000);
    /// # Ok(()) }
    /// ```
    pub fn put_iter<E, I>(mut self, entities: I) -> Self
    where
        E: WithoutUnique + WithoutVersion + Send + 'static,
        I: IntoIterator<Item = E>,
        I::IntoIter: Send + 'static,
        S: Reaches<E>,
    {
        let entities = entities.into_iter();
        self.add_source::<E>(entities.size_hint().0, FromIter(entities));
        self
    }

    /// Writes the entities of a stream, polled only as chunks are sent:
    /// each entity is converted and stamped (as [`put`](Self::put) does)
    /// when its chunk is built, and at most the batch policy's
    /// `concurrency` chunks are in flight. Nothing is polled until the
    /// batch is awaited; the batch's own `put`s and `delete`s go first.
    ///
    /// An entity that cannot be written (it fails to convert, breaks a
    /// limit, or repeats a key the batch has named: repeats are caught
    /// across the whole batch through a hash of each key, see below) is
    /// not sent: it comes back in [`BatchWriteOutput::refused`] with its
    /// position, and the rest of the stream is written.
    ///
    /// Keys are remembered as 64-bit hashes (about 10 bytes an item): two
    /// different keys that share one (odds of about n²/2⁶⁵ for n items) get
    /// the later one refused as a repeat, reported, never dropped silently.
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// use futures::StreamExt;
    /// let docs = futures::stream::iter(0..100_000).map(|i| Doc { id: format!("doc-{i}") });
    /// let out = client.batch_write().put_stream(docs).await?;
    /// for refused in &out.refused {
    ///     eprintln!("item {} not written: {}", refused.position, refused.error);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn put_stream<E, St>(mut self, entities: St) -> Self
    where
        E: WithoutUnique + WithoutVersion + Send + 'static,
        St: Stream<Item = E> + Send + 'static,
        S: Reaches<E>,
    {
        self.add_source::<E>(entities.size_hint().0, FromStream(Box::pin(entities)));
        self
    }

    fn add_source<E: Entity>(&mut self, expected: usize, source: impl Source + 'static) {
        self.primary.get_or_insert(&E::MODEL.primary);
        // Room for the keys the source says it holds at least (an
        // iterator's length): the set does not grow as they come.
        self.seen.reserve(expected);
        self.sources.push(Box::new(source));
    }

    /// Holds this batch to `limit` instead of the client's
    /// ([`Client::with_rate_limit`](crate::Client::with_rate_limit)): each
    /// chunk, and each retry of what came back unprocessed, waits until the
    /// chunks before it are paid for.
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity, RateLimit};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let docs = (0..10_000).map(|i| Doc { id: format!("doc-{i}") });
    /// let limit = RateLimit::fixed(f64::INFINITY, 1_000.0);
    /// let out = client.batch_write().put_iter(docs).rate_limit(limit).await?;
    /// # Ok(()) }
    /// ```
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.client = self.client.with_rate_limit(limit);
        self
    }

    /// Deletes the item with this key. Refused at compile time: entities
    /// with unique constraints (their sentinels go with `client.delete`) and
    /// soft-delete entities (their delete marks the item, an UpdateItem no
    /// batch can send: `client.delete`, or [`purge`](Self::purge) to delete
    /// them for good).
    pub fn delete<E: WithoutUnique + WithoutSoftDelete>(self, key: PrimaryKey<E>) -> Self
    where
        S: Reaches<E>,
    {
        self.delete_request(key)
    }

    /// Deletes the item with this key for good, a soft-delete entity's
    /// included (deleted or not): the DeleteItem `client.purge` sends.
    pub fn purge<E: WithoutUnique>(self, key: PrimaryKey<E>) -> Self
    where
        S: Reaches<E>,
    {
        self.delete_request(key)
    }

    /// A DeleteRequest of the item with this key.
    fn delete_request<E: Entity>(mut self, key: PrimaryKey<E>) -> Self {
        self.build::<E>(|_, seen, chunk| {
            check_primary_key(&key)?;
            let named = name_key(seen, chunk, E::MODEL.name, KeyRef::of(&key))?;
            let delete = DeleteRequest::builder()
                .set_key(Some(key.to_item()))
                .build()
                .map_err(invalid)?;
            chunk.push(
                named,
                WriteRequest::builder().delete_request(delete).build(),
            );
            Ok(())
        });
        self
    }

    async fn send(self) -> Result<BatchWriteOutput> {
        let BatchWrite {
            client,
            built,
            sources,
            seen,
            primary,
            error,
            ..
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let table = client.checked_table()?;
        let Some(primary) = primary else {
            return Ok(BatchWriteOutput::empty());
        };
        let more = !sources.is_empty();
        let (cut, open) = built.cut(more);
        let mut cutting = Cutting {
            client: client.clone(),
            cut,
            sources: sources.into_iter(),
            open,
            seen,
            position: 0,
        };
        let chunks = Chunks {
            client: &client,
            table,
            primary,
        };
        let mut output = BatchWriteOutput::empty();
        stream::poll_fn(move |cx| cutting.poll_chunk(cx))
            .map(|chunk| chunks.write(chunk))
            .buffer_unordered(client.inner.batch.concurrency.max(1))
            .for_each(|chunk| {
                output.merge(chunk);
                std::future::ready(())
            })
            .await;
        Ok(output)
    }
}

/// Where `put_iter` and `put_stream` take their entities from, as chunks
/// are built.
trait Source: Send {
    /// Builds entities into `into`'s chunk until it is full
    /// (`Ready(false)`) or the source has none left (`Ready(true)`).
    fn poll_fill(&mut self, cx: &mut Context<'_>, into: &mut Filling<'_>) -> Poll<bool>;
}

/// The entities of an iterator, taken as a chunk is built.
struct FromIter<I>(I);

/// The entities of a stream, polled as a chunk is built.
struct FromStream<St>(Pin<Box<St>>);

impl<E, I> Source for FromIter<I>
where
    E: WithoutUnique + WithoutVersion,
    I: Iterator<Item = E> + Send,
{
    fn poll_fill(&mut self, _: &mut Context<'_>, into: &mut Filling<'_>) -> Poll<bool> {
        while !into.chunk.is_full() {
            match self.0.next() {
                Some(entity) => into.put(&entity),
                None => return Poll::Ready(true),
            }
        }
        Poll::Ready(false)
    }
}

impl<E, St> Source for FromStream<St>
where
    E: WithoutUnique + WithoutVersion,
    St: Stream<Item = E> + Send,
{
    fn poll_fill(&mut self, cx: &mut Context<'_>, into: &mut Filling<'_>) -> Poll<bool> {
        while !into.chunk.is_full() {
            match ready!(self.0.as_mut().poll_next(cx)) {
                Some(entity) => into.put(&entity),
                None => return Poll::Ready(true),
            }
        }
        Poll::Ready(false)
    }
}

/// The chunk a [`Source`] builds into, and what its entities are checked
/// against.
struct Filling<'a> {
    client: &'a Client,
    seen: &'a mut SeenKeys,
    chunk: &'a mut Chunk,
    /// The position of the next streamed entity.
    position: &'a mut usize,
}

impl Filling<'_> {
    /// Builds an entity's put, or refuses the entity.
    fn put<E: WithoutUnique + WithoutVersion>(&mut self, entity: &E) {
        let position = *self.position;
        *self.position += 1;
        if let Err(error) = put_into(self.client, self.seen, self.chunk, entity) {
            self.chunk.refuse(RefusedWrite {
                position,
                entity: E::MODEL.name,
                error,
            });
        }
    }
}

/// A batch's chunks, cut as they are sent: the full chunks of what `put`,
/// `put_all` and `delete` built, then what is left of it (fewer than 25
/// requests) filled from the sources, and new chunks filled from them, in
/// order.
struct Cutting {
    client: Client,
    cut: Cut,
    sources: std::vec::IntoIter<Box<dyn Source>>,
    /// The chunk being filled from `sources`.
    open: Chunk,
    seen: SeenKeys,
    position: usize,
}

impl Cutting {
    fn poll_chunk(&mut self, cx: &mut Context<'_>) -> Poll<Option<Ready>> {
        if let Some(chunk) = self.cut.next() {
            return Poll::Ready(Some(chunk));
        }
        loop {
            let source = match self.sources.as_mut_slice().first_mut() {
                Some(source) if !self.open.is_full() => source,
                // Full, or nothing left to fill it from (then the next is
                // empty: the end).
                _ => {
                    let room = if self.sources.len() > 0 {
                        BATCH_WRITE_CHUNK
                    } else {
                        0
                    };
                    let chunk = std::mem::replace(&mut self.open, Chunk::with_capacity(room));
                    return Poll::Ready(chunk.ready());
                }
            };
            let mut into = Filling {
                client: &self.client,
                seen: &mut self.seen,
                chunk: &mut self.open,
                position: &mut self.position,
            };
            if ready!(source.poll_fill(cx, &mut into)) {
                self.sources.next();
            }
        }
    }
}

impl<S: Scope> crate::ops::operation::Operation for BatchWrite<S> {
    type Output = BatchWriteOutput;
    const READS_FIRST: bool = true;

    fn describe(&self) -> crate::trace::Op<'_> {
        crate::trace::Op {
            operation: "batch_write",
            entity: "-",
            table: &self.client.inner.table,
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(
        self,
    ) -> impl std::future::Future<Output = Result<BatchWriteOutput>> + Send + 'static {
        self.send()
    }
}

crate::ops::operation::operation!([S: Scope] BatchWrite<S> => BatchWriteOutput);
