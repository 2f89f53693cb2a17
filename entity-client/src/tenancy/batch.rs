//! Batch writes of a tenant client, sent as transactions.
//!
//! Every write of a tenant client is conditioned on its item being absent
//! or of its entity (the identity guard): another tenant's item of an
//! entity whose key format spells the same key (`ORG#{tenant}` of tenant
//! `Xacme`, `ORG#X{tenant}` of tenant `acme`) is never written over. A
//! BatchWriteItem takes no conditions, so it cannot carry that guard, and a
//! key check alone cannot tell the two items apart. A tenant batch write
//! therefore sends its puts and deletes as TransactWriteItems of up to 100
//! guarded writes each (twice the write capacity of a batch, and each chunk
//! all or nothing), one chunk after another. Entities with unique
//! constraints or a version are refused at compile time, as in
//! [`Client::batch_write`](crate::Client::batch_write) (their writes need
//! a read or a version condition), and so is a soft-delete entity's delete
//! (which marks the item, as a transaction cannot; `purge` deletes it for
//! good).

use super::TenantClient;
use crate::error::{Error, Result};
use crate::keys::KeyId;
use crate::limits::MAX_TRANSACTION_ITEMS;
use crate::ops::batch::seen::SeenKeys;
use crate::ops::batch::write::{BatchWriteOutput, RefusedWrite, UnprocessedWrite};
use crate::ops::managed::{self, Mode, Stamped};
use crate::ops::operation::{operation, Operation};
use crate::ops::single::IdentityGuard;
use crate::ops::transact::created_at_composes_a_key;
use crate::ops::transact::TransactWrite;
use crate::rate_limit::{Kind, RateLimit};
use crate::scoping::{Reaches, Reads};
use crate::trace::Op;
use crate::Client;
use entity_core::{
    Entity, IntoTenantKey, Item, PrimaryKey, TenantEntity, WithoutSoftDelete, WithoutUnique,
    WithoutVersion,
};
use futures::stream::{self, BoxStream, Stream, StreamExt};
use std::future::Future;

/// A batch of puts and deletes of one tenant's items
/// ([`TenantClient::batch_write`]), sent as guarded transactions of up to
/// 100 writes: a BatchWriteItem takes no conditions, so it cannot carry
/// the identity guard every write of a tenant client has.
///
/// Another tenant's entity or key is [`Error::TenantMismatch`] and nothing
/// is sent; so is a key named twice, as the batch's error. A chunk that
/// fails once sent (another entity's item at one of its keys, which is
/// `TenantMismatch`, or a server error) writes none of its items: its
/// error is in [`BatchWriteOutput::errors`] and its items in
/// [`BatchWriteOutput::unprocessed`], and the other chunks are still sent.
///
/// ```
/// use entity_client::Entity;
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(schema = "shop", tenant = tenant_id)]
/// #[pk(tenant_id)]
/// #[sk(sku)]
/// struct Listing { tenant_id: String, sku: String }
///
/// # #[cfg(not(feature = "embedded"))] fn main() {}
/// # #[cfg(feature = "embedded")]
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = entity_client::EmbeddedDynamo::start().await?;
/// # let client = server.client("app");
/// # client.create_table(&[Listing::MODEL]).await?;
/// let acme = client.tenant("acme");
/// let listing = |sku: &str| Listing { tenant_id: "acme".into(), sku: sku.into() };
/// let out = acme.batch_write().put(&listing("s1")).put(&listing("s2")).await?;
/// assert!(out.is_complete());
/// let out = acme.batch_write().delete(Listing::tenant_key("s1")).await?;
/// assert_eq!(out.written, 1);
/// assert_eq!(acme.get(Listing::tenant_key("s2")).await?, Some(listing("s2")));
///
/// // Another tenant's entity is refused before anything is sent.
/// let theirs = Listing { tenant_id: "globex".into(), sku: "s3".into() };
/// let refused = acme.batch_write().put(&listing("s3")).put(&theirs).await;
/// assert!(matches!(refused, Err(entity_client::Error::TenantMismatch { .. })));
/// assert_eq!(acme.get(Listing::tenant_key("s3")).await?, None);
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct TenantBatchWrite {
    tenant: TenantClient,
    /// The plain client behind the tenant's (over its checked SDK client).
    client: Client,
    chunks: Vec<Chunk>,
    /// Every key named so far: a repeat is refused (DynamoDB would refuse
    /// it within a chunk).
    seen: SeenKeys,
    error: Option<Error>,
    /// What `put_iter` and `put_stream` will convert, in order, after the
    /// chunks above.
    streams: Vec<BoxStream<'static, Streamed>>,
}

/// A streamed entity's write, ready to add to a transaction, or the
/// entity's name and why it is refused.
type Streamed = std::result::Result<Queued, (&'static str, Error)>;

/// One streamed put: its entity, table key, and the write it adds.
struct Queued {
    entity: &'static str,
    key: Item,
    id: KeyId,
    write: Box<dyn FnOnce(TransactWrite) -> TransactWrite + Send>,
}

/// One transaction of the batch, and the table keys of its writes (what
/// `unprocessed` reports when it fails).
struct Chunk {
    writes: TransactWrite,
    keys: Vec<(&'static str, Item)>,
}

impl TenantClient {
    /// Starts a batch of puts and deletes of this tenant's items (see
    /// [`TenantBatchWrite`]: they are sent as transactions, which carry
    /// the tenant's identity guard).
    pub fn batch_write(&self) -> TenantBatchWrite {
        TenantBatchWrite {
            tenant: self.clone(),
            client: self.unscoped(),
            chunks: Vec::new(),
            seen: SeenKeys::default(),
            error: None,
            streams: Vec::new(),
        }
    }
}

impl TenantBatchWrite {
    /// Holds this batch to `limit` instead of the client's
    /// ([`Client::with_rate_limit`](crate::Client::with_rate_limit)): each
    /// transaction waits until the ones before it are paid for.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.client = self.client.with_rate_limit(limit);
        self
    }

    /// Writes a whole item of this tenant, with its generated ids and
    /// timestamps filled in as a transaction's put fills them (an unset
    /// `created_at` keeps the stored item's; see
    /// [`TransactWrite::put`](crate::TransactWrite::put)), before its key
    /// is named: a generated id may be part of it. An unset `created_at`
    /// that a key is composed of is now, as in
    /// [`Client::batch_write`](crate::Client::batch_write).
    pub fn put<E: TenantEntity + WithoutUnique + WithoutVersion + 'static>(
        mut self,
        entity: &E,
    ) -> Self {
        if let Some(error) = self.tenant.scope.refuse(entity) {
            self.error.get_or_insert(error);
            return self;
        }
        match stamped(&self.client, entity) {
            Ok((stamped, key)) => self.add::<E>(key.to_item(), KeyId::of(&key), |writes| {
                writes.whole_stamped(stamped, KeyId::of(&key), Mode::Replace, None, guard::<E>())
            }),
            Err(error) => {
                self.error.get_or_insert(error);
                self
            }
        }
    }

    /// Writes each entity (see [`put`](Self::put)).
    pub fn put_all<'a, E: TenantEntity + WithoutUnique + WithoutVersion + 'static>(
        self,
        entities: impl IntoIterator<Item = &'a E>,
    ) -> Self {
        entities
            .into_iter()
            .fold(self, |batch, entity| batch.put(entity))
    }

    /// Writes the entities of an iterator, each taken and converted only as
    /// its transaction is built (see [`put_stream`](Self::put_stream)).
    pub fn put_iter<E, I>(self, entities: I) -> Self
    where
        E: TenantEntity + WithoutUnique + WithoutVersion + Send + 'static,
        I: IntoIterator<Item = E>,
        I::IntoIter: Send + 'static,
    {
        self.put_stream(stream::iter(entities))
    }

    /// Writes the entities of a stream, polled only as transactions are
    /// built: each entity is checked and stamped (as [`put`](Self::put)
    /// does) when its transaction of up to 100 writes is built, and one
    /// transaction is in flight at a time, after the batch's own writes. A
    /// write of any size holds one transaction in memory.
    ///
    /// An entity that cannot be written (another tenant's, one that fails
    /// to convert or breaks a limit, a key the batch already named) is not
    /// sent: it comes back in [`BatchWriteOutput::refused`] with its
    /// position among the streamed entities, and the rest is written.
    ///
    /// ```
    /// use entity_client::Entity;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "shop", tenant = tenant_id)]
    /// #[pk(tenant_id)]
    /// #[sk(sku)]
    /// struct Listing { tenant_id: String, sku: String }
    ///
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = entity_client::EmbeddedDynamo::start().await?;
    /// # let client = server.client("app");
    /// # client.create_table(&[Listing::MODEL]).await?;
    /// let acme = client.tenant("acme");
    /// let listings = (0..250).map(|i| Listing { tenant_id: "acme".into(), sku: format!("s{i}") });
    /// let theirs = Listing { tenant_id: "globex".into(), sku: "x".into() };
    /// let out = acme.batch_write().put_iter(listings.chain([theirs])).await?;
    /// assert_eq!(out.written, 250);
    /// assert_eq!(out.refused.len(), 1); // another tenant's, at position 250
    /// assert_eq!(out.refused[0].position, 250);
    /// # Ok(()) }
    /// ```
    pub fn put_stream<E, St>(mut self, entities: St) -> Self
    where
        E: TenantEntity + WithoutUnique + WithoutVersion + Send + 'static,
        St: Stream<Item = E> + Send + 'static,
    {
        Reads::<E>::enter(&self.tenant.scope);
        let scope = self.tenant.scope.clone();
        let client = self.client.clone();
        let converted = entities.map(move |entity| {
            if let Some(error) = scope.refuse(&entity) {
                return Err((E::MODEL.name, error));
            }
            let (stamped, key) = stamped(&client, &entity).map_err(|e| (E::MODEL.name, e))?;
            let id = KeyId::of(&key);
            Ok(Queued {
                entity: E::MODEL.name,
                key: key.to_item(),
                id: id.clone(),
                write: Box::new(move |writes: TransactWrite| {
                    writes.whole_stamped(stamped, id, Mode::Replace, None, guard::<E>())
                }),
            })
        });
        self.streams.push(converted.boxed());
        self
    }

    /// Deletes the item of this tenant with this key. A soft-delete
    /// entity is refused at compile time (its delete marks the item: use
    /// [`TenantClient::delete`], or [`purge`](Self::purge) to delete it for
    /// good).
    pub fn delete<E: TenantEntity + WithoutUnique + WithoutSoftDelete + 'static>(
        self,
        key: impl IntoTenantKey<E>,
    ) -> Self {
        self.keyed(key, |writes, key| {
            writes.delete_any(key, None, IdentityGuard::of::<E>(true))
        })
    }

    /// Deletes the item of this tenant with this key for good, a
    /// soft-delete entity's included (deleted or not).
    pub fn purge<E: TenantEntity + WithoutUnique + 'static>(
        self,
        key: impl IntoTenantKey<E>,
    ) -> Self {
        self.keyed(key, |writes, key| {
            writes.purge_any(key, None, IdentityGuard::of::<E>(true))
        })
    }

    /// Adds the write `write` makes of the item with `key`, completed with
    /// this tenant.
    fn keyed<E: TenantEntity + 'static>(
        self,
        key: impl IntoTenantKey<E>,
        write: impl FnOnce(TransactWrite, entity_core::PrimaryKey<E>) -> TransactWrite,
    ) -> Self {
        let key = key.into_tenant_key(self.tenant.tenant());
        let item = key.to_item();
        let id = KeyId::of(&key);
        self.add::<E>(item, id, |writes| write(writes, key))
    }

    /// Adds one write of `E` at `key` to the last chunk (or a new one),
    /// after checking the key is this tenant's and not named yet; an error
    /// the transaction holds becomes the batch's.
    fn add<E: TenantEntity + 'static>(
        mut self,
        key: Item,
        id: KeyId,
        write: impl FnOnce(TransactWrite) -> TransactWrite,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        Reads::<E>::enter(&self.tenant.scope);
        let checked = (self.tenant.check_key(&key))
            .and_then(|()| self.seen.insert(id.borrowed()).map_err(Error::from));
        if let Err(error) = checked {
            self.error = Some(error);
            return self;
        }
        let full = |chunk: &Chunk| chunk.writes.len() >= MAX_TRANSACTION_ITEMS;
        if self.chunks.last().is_none_or(full) {
            let writes = self.client.transact_write();
            self.chunks.push(Chunk {
                writes,
                keys: Vec::new(),
            });
        }
        let chunk = self.chunks.last_mut().expect("a chunk was just ensured");
        let writes = std::mem::replace(&mut chunk.writes, self.client.transact_write());
        let mut writes = write(writes);
        self.error = writes.take_error();
        chunk.writes = writes;
        chunk.keys.push((E::MODEL.name, key));
        self
    }

    /// Writes the batch has so far.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|chunk| chunk.keys.len()).sum()
    }

    /// True when the batch has no writes.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    async fn send(self) -> Result<BatchWriteOutput> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let mut output = BatchWriteOutput {
            written: 0,
            unprocessed: Vec::new(),
            errors: Vec::new(),
            refused: Vec::new(),
        };
        // Every chunk through this batch's client (explain's, when it is
        // explained), in this batch's span.
        let client = self.client;
        for chunk in self.chunks {
            chunk.send(&client, &mut output).await;
        }
        let mut seen = self.seen;
        let mut chunk: Option<Chunk> = None;
        let mut streamed = stream::iter(self.streams).flatten().enumerate();
        while let Some((position, next)) = streamed.next().await {
            let checked = next.and_then(|queued| {
                let entity = queued.entity;
                self.tenant
                    .check_key(&queued.key)
                    .and_then(|()| seen.insert(queued.id.borrowed()).map_err(Error::from))
                    .map(|()| queued)
                    .map_err(|error| (entity, error))
            });
            let queued = match checked {
                Ok(queued) => queued,
                Err((entity, error)) => {
                    output.refused.push(RefusedWrite {
                        position,
                        entity,
                        error,
                    });
                    continue;
                }
            };
            let current = chunk.get_or_insert_with(|| Chunk {
                writes: client.transact_write(),
                keys: Vec::new(),
            });
            let writes = std::mem::replace(&mut current.writes, client.transact_write());
            let mut writes = (queued.write)(writes);
            // An entity that fails to convert is refused alone: the
            // transaction holds its error, not its write.
            if let Some(error) = writes.take_error() {
                output.refused.push(RefusedWrite {
                    position,
                    entity: queued.entity,
                    error,
                });
            } else {
                current.keys.push((queued.entity, queued.key));
            }
            current.writes = writes;
            if current.writes.len() >= MAX_TRANSACTION_ITEMS {
                if let Some(full) = chunk.take() {
                    full.send(&client, &mut output).await;
                }
            }
        }
        if let Some(last) = chunk.filter(|c| !c.keys.is_empty()) {
            last.send(&client, &mut output).await;
        }
        Ok(output)
    }
}

impl Chunk {
    /// Sends the chunk's transaction through `client`: its writes are
    /// written, or all unprocessed with its error.
    async fn send(self, client: &Client, output: &mut BatchWriteOutput) {
        let Chunk { mut writes, keys } = self;
        client.capacity_ready(Kind::Write).await;
        *writes.client_mut() = client.clone();
        match writes.execute().await {
            Ok(()) => output.written += keys.len(),
            Err(error) => {
                output.errors.push(error);
                output
                    .unprocessed
                    .extend(keys.into_iter().map(|(entity, key)| UnprocessedWrite {
                        entity,
                        key,
                        request: None,
                    }));
            }
        }
    }
}

impl Operation for TenantBatchWrite {
    type Output = BatchWriteOutput;
    const READS_FIRST: bool = true;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "batch_write",
            entity: self
                .chunks
                .first()
                .map_or("", |c| c.keys.first().map_or("", |k| k.0)),
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<BatchWriteOutput>> + Send + 'static {
        self.send()
    }
}

operation!([] TenantBatchWrite => BatchWriteOutput);

/// A tenant's write is guarded: it touches only an item that is absent or
/// of its entity.
fn guard<E: Entity>() -> Option<IdentityGuard> {
    IdentityGuard::of::<E>(true)
}

/// An entity stamped for a batch put, and its table key (a generated id
/// may be part of it): ids generated, timestamps set, as a batch put
/// stamps them. An unset `created_at` keeps a stored item's, unless a key
/// is composed of it: then it is now, as in
/// [`Client::batch_write`](crate::Client::batch_write) (a transaction
/// cannot read the stored one first, and the key must be known).
fn stamped<E: Entity>(client: &Client, entity: &E) -> Result<(Stamped<E>, PrimaryKey<E>)> {
    let mut stamped = managed::stamp(client, entity, Mode::Replace)?;
    if stamped.created_unset && created_at_composes_a_key::<E>() {
        stamped.created_unset = false;
    }
    // An entity stored as it converts is not stamped: its key is its own.
    let key = match &stamped.entity {
        Some(stamped) => stamped.primary_key(),
        None => entity.primary_key(),
    };
    Ok((stamped, key))
}
