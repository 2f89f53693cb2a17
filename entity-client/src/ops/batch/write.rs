//! `batch_write`: puts and deletes of any entities, in chunks of 25, from
//! the builder's own requests or streamed from an iterator or a `Stream` of
//! entities, converted as their chunk is built.

use super::seen::{KeyHasher, SeenKeys};
use super::stream_chunks;
pub use super::write_chunk::{BatchWriteOutput, RefusedWrite, UnprocessedWrite};
use super::write_chunk::{Chunks, Pending};
use crate::error::{Error, Result, ValidationError};
use crate::keys::{KeyId, KeyRef};
use crate::limits::{check_item_key, check_primary_key, BATCH_WRITE_CHUNK};
use crate::ops::managed::{checks_as_written, stamp_checked, Mode};
use crate::rate_limit::RateLimit;
use crate::scoping::{CrossTenant, Reaches, Scope, Unscoped};
use crate::Client;
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
use entity_core::{
    Entity, IndexModel, Item, PrimaryKey, WithoutSoftDelete, WithoutUnique, WithoutVersion,
};
use futures::stream::{self, BoxStream, Stream, StreamExt};

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
    requests: Vec<Pending>,
    /// What `put_iter` and `put_stream` will convert, in order, after them.
    streams: Vec<BoxStream<'static, Streamed>>,
    /// Every key named so far: a repeat is refused (DynamoDB would).
    seen: SeenKeys,
    /// How the table is keyed (every entity of a table keys it alike).
    primary: Option<&'static IndexModel>,
    error: Option<Error>,
}

/// A streamed entity converted, or the entity's name and why not.
type Streamed = std::result::Result<Pending, (&'static str, Error)>;

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
            requests: Vec::new(),
            streams: Vec::new(),
            seen: SeenKeys::default(),
            primary: None,
            error: None,
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> Error {
    ValidationError::InvalidRequest(e.to_string()).into()
}

/// A whole item's put, with its managed fields stamped as `put` stamps them
/// (`created_at` kept as the entity holds it, or now when unset), and the
/// hash of its table key.
fn put_request<E: WithoutUnique + WithoutVersion>(
    client: &Client,
    hasher: &KeyHasher,
    entity: &E,
) -> Result<Pending> {
    let item = if const { checks_as_written::<E>() } {
        // Checked as it is written (keys written only by the derive's
        // composers): the item is not read again.
        match stamp_checked(entity, |key| hasher.hash(key))? {
            (stamped, Some(key)) => return pending::<E>(stamped.item, key),
            (stamped, None) => stamped.item,
        }
    } else {
        crate::ops::managed::stamp(client, entity, Mode::Replace)?.item
    };
    let key = match check_item_key(E::MODEL, &item)? {
        Some(key) => hasher.hash(key),
        // Only a hand-written `write_item` leaves the table key out: the
        // key the entity composes stands for it.
        None => hasher.hash(KeyId::of(&entity.primary_key()).borrowed()),
    };
    pending::<E>(item, key)
}

/// The put of `item`, whose table key hashes to `key`.
fn pending<E: Entity>(item: Item, key: u64) -> Result<Pending> {
    let put = PutRequest::builder()
        .set_item(Some(item))
        .build()
        .map_err(invalid)?;
    Ok(Pending {
        key,
        entity: E::MODEL.name,
        request: WriteRequest::builder().put_request(put).build(),
    })
}

impl<S: Scope> BatchWrite<S> {
    fn push<E: Entity>(mut self, request: Result<Pending>) -> Self {
        self.add::<E>(request);
        self
    }

    /// Adds a request built now, refusing a repeated key; the first error
    /// is the batch's.
    fn add<E: Entity>(&mut self, request: Result<Pending>) {
        let primary = &E::MODEL.primary;
        let request = request.and_then(|pending| {
            let describe = || pending.describe_key(primary);
            self.seen.insert_hash(pending.key, describe)?;
            Ok(pending)
        });
        match request {
            Ok(pending) => {
                self.primary.get_or_insert(primary);
                self.requests.push(pending);
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Writes a whole item, with its generated ids and timestamps filled in
    /// (`created_at` kept as the entity holds it, or now when unset).
    ///
    /// BatchWriteItem takes no conditions, so entities with an
    /// optimistic-lock version or unique constraints are refused at compile
    /// time: write those one by one or in a transaction.
    pub fn put<E: WithoutUnique + WithoutVersion>(self, entity: &E) -> Self
    where
        S: Reaches<E>,
    {
        let request = put_request(&self.client, self.seen.hasher(), entity);
        self.push::<E>(request)
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
        self.requests.reserve(expected);
        self.seen.reserve(expected);
        for entity in entities {
            let request = put_request(&self.client, self.seen.hasher(), entity);
            self.add::<E>(request);
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
    pub fn put_iter<E, I>(self, entities: I) -> Self
    where
        E: WithoutUnique + WithoutVersion + Send + 'static,
        I: IntoIterator<Item = E>,
        I::IntoIter: Send + 'static,
        S: Reaches<E>,
    {
        self.put_stream(stream::iter(entities))
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
        self.primary.get_or_insert(&E::MODEL.primary);
        // Room for the keys the stream says it holds at least (an
        // iterator's length): the set does not grow as they come.
        self.seen.reserve(entities.size_hint().0);
        let client = self.client.clone();
        let hasher = self.seen.hasher().clone();
        let converted = entities.map(move |entity| {
            put_request(&client, &hasher, &entity).map_err(|error| (E::MODEL.name, error))
        });
        self.streams.push(converted.boxed());
        self
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
    fn delete_request<E: Entity>(self, key: PrimaryKey<E>) -> Self {
        let request = check_primary_key(&key).map_err(Error::from).and_then(|()| {
            let delete = DeleteRequest::builder()
                .set_key(Some(key.to_item()))
                .build()
                .map_err(invalid)?;
            Ok(Pending {
                key: self.seen.hasher().hash(KeyRef::of(&key)),
                entity: E::MODEL.name,
                request: WriteRequest::builder().delete_request(delete).build(),
            })
        });
        self.push::<E>(request)
    }

    async fn send(self) -> Result<BatchWriteOutput> {
        let BatchWrite {
            client,
            requests,
            streams,
            mut seen,
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
        let streamed =
            stream::iter(streams)
                .flatten()
                .enumerate()
                .map(move |(position, streamed)| {
                    streamed
                        .and_then(|pending| {
                            let describe = || pending.describe_key(primary);
                            match seen.insert_hash(pending.key, describe) {
                                Ok(()) => Ok(pending),
                                Err(repeat) => Err((pending.entity, repeat.into())),
                            }
                        })
                        .map_err(|(entity, error)| RefusedWrite {
                            position,
                            entity,
                            error,
                        })
                });
        let pending = stream::iter(requests).map(Ok).chain(streamed);
        let chunks = Chunks {
            client: &client,
            table,
            primary,
        };
        let output = stream_chunks(pending, BATCH_WRITE_CHUNK)
            .map(|chunk| async move {
                match chunk {
                    Ok(chunk) => chunks.write(chunk).await,
                    Err(refused) => BatchWriteOutput {
                        refused: vec![refused],
                        ..BatchWriteOutput::empty()
                    },
                }
            })
            .buffer_unordered(client.inner.batch.concurrency.max(1))
            .fold(BatchWriteOutput::empty(), |output, chunk| async move {
                output.merge(chunk)
            })
            .await;
        Ok(output)
    }
}

impl<S: Scope> crate::ops::operation::Operation for BatchWrite<S> {
    type Output = BatchWriteOutput;
    const WRITES: bool = true;

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
