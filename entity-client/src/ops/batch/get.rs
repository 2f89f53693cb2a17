//! `batch_get`: any number of keys of one entity, read in chunks of 100.

use super::{chunks, until_processed};
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::keys::{KeyId, KeySet};
use crate::limits::{check_primary_key, BATCH_GET_CHUNK};
use crate::ops::operation::{operation, Operation};
use crate::ops::visibility::{Shown, Visibility};
use crate::rate_limit::Kind;
use crate::scoping::{Reaches, Scope, ScopeKey};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::KeysAndAttributes;
use entity_core::{Entity, Item, PrimaryKey};
use futures::stream::{self, StreamExt};
use std::future::Future;

/// What a batch get read, and the keys it could not.
#[derive(Debug)]
pub struct BatchGetOutput<E> {
    /// The items found (keys with no item are simply absent), in no
    /// particular order.
    pub items: Vec<E>,
    /// Keys still unprocessed when the attempts ran out, or whose request
    /// failed.
    pub unprocessed: Vec<PrimaryKey<E>>,
    /// Requests that failed after the SDK's retries, and items found that
    /// could not be read as `E`. The other chunks' results are kept.
    pub errors: Vec<Error>,
}

/// A BatchGetItem of any number of keys of one entity.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let out = client.batch_get((0..250).map(|i| Doc::key(format!("d{i}")))).await?;
/// assert!(out.unprocessed.is_empty());
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct BatchGet<E> {
    client: Client,
    keys: Vec<PrimaryKey<E>>,
    consistent: bool,
    shown: Shown,
}

impl Client {
    /// `batch_get` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn batch_get_any<E: Entity>(
        &self,
        keys: impl IntoIterator<Item = PrimaryKey<E>>,
    ) -> BatchGet<E> {
        BatchGet {
            client: self.clone(),
            keys: keys.into_iter().collect(),
            consistent: false,
            shown: Shown::default(),
        }
    }
}

impl<S: Scope> Client<S> {
    /// Reads many items by key. Repeated keys are read once.
    pub fn batch_get<E: Entity>(
        &self,
        keys: impl IntoIterator<Item = impl ScopeKey<E, S>>,
    ) -> BatchGet<E>
    where
        S: Reaches<E>,
    {
        let scope = &self.scope;
        self.reach::<E>()
            .batch_get_any(keys.into_iter().map(|key| key.complete(scope)))
    }
}

impl<E> BatchGet<E> {
    /// Its client.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }
}

impl<E: Entity + Send + 'static> BatchGet<E> {
    /// Strongly consistent reads.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    crate::ops::visibility::shown_methods!();

    pub(crate) async fn send(self) -> Result<BatchGetOutput<E>> {
        let table = self.client.checked_table()?.to_owned();
        let visibility = Visibility::of::<E>(&self.client, self.shown);
        let mut seen = KeySet::default();
        let mut keys = Vec::with_capacity(self.keys.len());
        for key in self.keys {
            check_primary_key(&key)?;
            if seen.insert(KeyId::of(&key), ()).is_ok() {
                keys.push(key.to_item());
            }
        }
        let (client, consistent) = (&self.client, self.consistent);
        let chunks: Vec<BatchGetOutput<E>> = stream::iter(chunks(keys, BATCH_GET_CHUNK))
            .map(|chunk| get_chunk(client, &table, chunk, consistent, &visibility))
            .buffer_unordered(client.inner.batch.concurrency.max(1))
            .collect()
            .await;
        let mut output = BatchGetOutput {
            items: Vec::new(),
            unprocessed: Vec::new(),
            errors: Vec::new(),
        };
        for chunk in chunks {
            output.items.extend(chunk.items);
            output.unprocessed.extend(chunk.unprocessed);
            output.errors.extend(chunk.errors);
        }
        Ok(output)
    }
}

/// The table keys of `E` among key fragments.
fn keys_of<E: Entity>(items: &[Item]) -> Vec<PrimaryKey<E>> {
    items
        .iter()
        .filter_map(|item| KeyId::of_item(&E::MODEL.primary, item))
        .map(KeyId::into_key)
        .collect()
}

async fn get_chunk<E: Entity>(
    client: &Client,
    table: &str,
    chunk: Vec<Item>,
    consistent: bool,
    visibility: &Visibility,
) -> BatchGetOutput<E> {
    let outcome = until_processed(client.inner.batch, chunk, |keys: Vec<Item>, _| async move {
        // The keys move into the request: what a failure reports is read
        // from them first.
        let sent = keys_of::<E>(&keys);
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(consistent)
            .build()
            .map_err(|e| {
                (
                    ValidationError::InvalidRequest(e.to_string()).into(),
                    sent.clone(),
                )
            })?;
        // A limited client's batch reads wait for the budget, chunk by
        // chunk and retry by retry.
        client.capacity_ready(Kind::Read).await;
        let mut output = client
            .batch_sdk()
            .batch_get_item()
            .request_items(table, request)
            .send()
            .await
            // The SDK has retried under the batch policy: report it, keep
            // the keys as unprocessed, and let the other chunks finish.
            .map_err(|e| {
                (
                    from_sdk("BatchGetItem", E::MODEL.name, e).in_table(table),
                    sent,
                )
            })?;
        let found = output.responses.as_mut().and_then(|r| r.remove(table));
        let unprocessed = output
            .unprocessed_keys
            .and_then(|mut u| u.remove(table))
            .map(|k| k.keys)
            .unwrap_or_default();
        Ok((unprocessed, found.unwrap_or_default()))
    })
    .await;
    let mut output = BatchGetOutput {
        items: Vec::new(),
        unprocessed: keys_of(&outcome.unprocessed),
        errors: Vec::new(),
    };
    let shown = outcome.outputs.into_iter().flatten();
    for item in shown.filter(|item| visibility.shows(item)) {
        match E::from_item(item) {
            Ok(entity) => output.items.push(entity),
            Err(e) => output.errors.push(e.into()),
        }
    }
    if let Some((error, keys)) = outcome.failed {
        output.errors.push(error);
        output.unprocessed.extend(keys);
    }
    output
}

impl<E: Entity + Send + 'static> Operation for BatchGet<E> {
    type Output = BatchGetOutput<E>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "batch_get",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<BatchGetOutput<E>>> + Send + 'static {
        self.send()
    }
}

operation!([E: Entity + Send + 'static] BatchGet<E> => BatchGetOutput<E>);
