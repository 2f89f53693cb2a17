//! `hydrate`: the whole entities behind index views (what a query of a
//! `keys_only` or `include(..)` index returns), read by their table keys
//! with BatchGetItem: in chunks of 100, unprocessed keys retried, the
//! views' order kept, nothing dropped.

use super::batch::get::BatchGet;
use super::operation::{operation, Operation};
use super::paging::Page;
use super::query::QueryRequest;
use crate::error::{Error, Result};
use crate::keys::KeyId;
use crate::scoping::{Reaches, Scope};
use crate::trace::Op;
use crate::Client;
use entity_core::{Entity, IndexView, PrimaryKey};
use futures::stream::{Stream, TryStreamExt};
use std::collections::HashMap;
use std::future::{Future, IntoFuture};

/// A read of the whole entities behind index views. `.await` returns them
/// in the views' order.
///
/// An item deleted since its view was read is left out, and so is one now
/// hidden by the read rules (soft-deleted, expired; `include_deleted(true)`
/// and `include_expired(true)` show them). A view repeated is read and returned
/// once. A key still unprocessed when the retries ran out fails the whole
/// read with [`Error::Unprocessed`]: nothing is silently missing.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(task_id)]
/// # #[index(by_owner(gsi = "gsi1", pk(owner), projection = keys_only))]
/// # struct Task { task_id: String, owner: String, notes: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// // The index holds the keys: cheap to read.
/// let views = client.query(Task::by_owner("ana")).all().await?;
/// let ids: Vec<&str> = views.iter().map(|v| v.task_id.as_str()).collect();
/// // The whole tasks, for the ones shown.
/// let tasks: Vec<Task> = client.hydrate(&views[..ids.len().min(10)]).await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct Hydrate<E> {
    batch: BatchGet<E>,
    order: Vec<PrimaryKey<E>>,
}

impl<S: Scope> Client<S> {
    /// Reads the whole entities behind `views` (see [`Hydrate`]).
    pub fn hydrate<'v, V: IndexView + 'v>(
        &self,
        views: impl IntoIterator<Item = &'v V>,
    ) -> Hydrate<V::Entity>
    where
        S: Reaches<V::Entity>,
    {
        let order: Vec<PrimaryKey<V::Entity>> =
            views.into_iter().map(|v| v.primary_key()).collect();
        Hydrate {
            batch: self.batch_get(order.clone()),
            order,
        }
    }
}

impl Client {
    /// `hydrate` from a client already scoped (a query's).
    fn hydrate_keys<E: Entity>(&self, order: Vec<PrimaryKey<E>>) -> Hydrate<E> {
        Hydrate {
            batch: self.batch_get_any(order.clone()),
            order,
        }
    }
}

impl<E: Entity + Send + 'static> Hydrate<E> {
    /// Strongly consistent reads.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.batch = self.batch.consistent_read(consistent);
        self
    }

    /// Also returns soft-deleted items.
    pub fn include_deleted(mut self, include: bool) -> Self {
        self.batch = self.batch.include_deleted(include);
        self
    }

    /// Also returns expired items DynamoDB has not deleted yet.
    pub fn include_expired(mut self, include: bool) -> Self {
        self.batch = self.batch.include_expired(include);
        self
    }

    async fn send(self) -> Result<Vec<E>> {
        let output = self.batch.send().await?;
        if let Some(error) = output.errors.into_iter().next() {
            return Err(error);
        }
        if !output.unprocessed.is_empty() {
            return Err(Error::Unprocessed {
                operation: "hydrate",
                keys: output.unprocessed.len(),
            });
        }
        let mut found: HashMap<KeyId, E> = output
            .items
            .into_iter()
            .map(|entity| (KeyId::of(&entity.primary_key()), entity))
            .collect();
        Ok(self
            .order
            .iter()
            .filter_map(|key| found.remove(&KeyId::of(key)))
            .collect())
    }
}

impl<E: Entity + Send + 'static> Operation for Hydrate<E> {
    type Output = Vec<E>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "hydrate",
            entity: E::MODEL.name,
            table: self.batch.client().table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        Operation::client_mut(&mut self.batch)
    }

    fn execute(self) -> impl Future<Output = Result<Vec<E>>> + Send + 'static {
        self.send()
    }
}

operation!([E: Entity + Send + 'static] Hydrate<E> => Vec<E>);

impl<V: IndexView + Send + 'static> QueryRequest<V>
where
    V::Entity: Send + 'static,
{
    /// One page of the query, hydrated: the whole entities behind the
    /// page's views, in order, and the page's cursor.
    pub fn hydrate(self) -> impl Future<Output = Result<Page<V::Entity>>> + Send + 'static {
        let client = self.client().clone();
        async move {
            let page = self.await?;
            let keys = page.items.iter().map(|v| v.primary_key()).collect();
            let items = client.hydrate_keys(keys).await?;
            Ok(Page {
                items,
                cursor: page.cursor,
            })
        }
    }

    /// Every entity the query finds, hydrated page by page (one BatchGet
    /// per page of views), in the query's order.
    pub fn hydrated(self) -> impl Stream<Item = Result<V::Entity>> + Send + 'static {
        let client = self.client().clone();
        self.pages()
            .and_then(move |page| {
                let keys = page.items.iter().map(|v| v.primary_key()).collect();
                client.hydrate_keys(keys).into_future()
            })
            .map_ok(|items| futures::stream::iter(items.into_iter().map(Ok)))
            .try_flatten()
    }
}
