//! `batch_write`: puts and deletes of any entities, in chunks of 25.

use super::{chunks, until_processed, with_batch_retries};
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::keys::{KeyId, KeySet};
use crate::limits::{check_item, check_primary_key, BATCH_WRITE_CHUNK};
use crate::ops::managed::Mode;
use crate::ops::BoxFuture;
use crate::Client;
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
use entity_core::{Entity, IndexModel, Item, PrimaryKey, WithoutUnique, WithoutVersion};
use futures::stream::{self, StreamExt};
use std::future::IntoFuture;

/// A write that a batch could not do.
#[derive(Debug, Clone, PartialEq)]
pub struct UnprocessedWrite {
    /// The entity.
    pub entity: &'static str,
    /// The item's table key attributes.
    pub key: Item,
    /// The request (a put with the item, or a delete) as DynamoDB handed it
    /// back unprocessed; `None` when the request carrying it failed as a
    /// whole: the SDK consumed it, and the batch keeps no copy (`key` says
    /// which item; the caller has it).
    pub request: Option<WriteRequest>,
}

/// What a batch write did, and what it could not.
#[derive(Debug)]
pub struct BatchWriteOutput {
    /// Puts and deletes DynamoDB accepted.
    pub written: usize,
    /// Requests still unprocessed when the attempts ran out, or whose request
    /// failed.
    pub unprocessed: Vec<UnprocessedWrite>,
    /// Requests that failed after the SDK's retries. The other chunks'
    /// results are kept.
    pub errors: Vec<Error>,
}

impl BatchWriteOutput {
    /// True when every put and delete was written.
    pub fn is_complete(&self) -> bool {
        self.unprocessed.is_empty() && self.errors.is_empty()
    }

    fn empty() -> Self {
        Self {
            written: 0,
            unprocessed: Vec::new(),
            errors: Vec::new(),
        }
    }
}

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
#[must_use = "a request does nothing until it is awaited"]
pub struct BatchWrite {
    client: Client,
    requests: Vec<WriteRequest>,
    /// Every item named so far, with its entity: refuses a repeat (DynamoDB
    /// would), and names the entity of a request that comes back.
    keys: KeySet<&'static str>,
    /// How the table is keyed (every entity of a table keys it alike).
    primary: Option<&'static IndexModel>,
    error: Option<Error>,
}

impl Client {
    /// Starts a batch of puts and deletes, of any entities.
    pub fn batch_write(&self) -> BatchWrite {
        BatchWrite {
            client: self.clone(),
            requests: Vec::new(),
            keys: KeySet::default(),
            primary: None,
            error: None,
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> Error {
    ValidationError::InvalidRequest(e.to_string()).into()
}

impl BatchWrite {
    fn push<E: Entity>(mut self, request: Result<(KeyId, WriteRequest)>) -> Self {
        let request = request.and_then(|(key, request)| {
            self.keys.insert_unique("batch write", key, E::MODEL.name)?;
            Ok(request)
        });
        match request {
            Ok(request) => {
                self.primary.get_or_insert(&E::MODEL.primary);
                self.requests.push(request);
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Writes a whole item, with its generated ids and timestamps filled in
    /// (`created_at` kept as the entity holds it, or now when unset).
    ///
    /// BatchWriteItem takes no conditions, so entities with an
    /// optimistic-lock version or unique constraints are refused at compile
    /// time: write those one by one or in a transaction.
    pub fn put<E: WithoutUnique + WithoutVersion>(self, entity: &E) -> Self {
        let stamped = crate::ops::managed::stamp(&self.client, entity, Mode::Replace);
        let request = stamped.and_then(|stamped| {
            let item = stamped.item;
            check_item(E::MODEL, &item)?;
            let key = KeyId::of_item(&E::MODEL.primary, &item)
                .unwrap_or_else(|| KeyId::of(&entity.primary_key()));
            let put = PutRequest::builder()
                .set_item(Some(item))
                .build()
                .map_err(invalid)?;
            Ok((key, WriteRequest::builder().put_request(put).build()))
        });
        self.push::<E>(request)
    }

    /// Writes many whole items.
    pub fn put_all<'a, E: WithoutUnique + WithoutVersion + 'a>(
        self,
        entities: impl IntoIterator<Item = &'a E>,
    ) -> Self {
        entities
            .into_iter()
            .fold(self, |batch, entity| batch.put(entity))
    }

    /// Deletes the item with this key (entities with unique constraints are
    /// refused at compile time: their sentinels go with `client.delete`).
    pub fn delete<E: WithoutUnique>(self, key: PrimaryKey<E>) -> Self {
        let request = check_primary_key(&key).map_err(Error::from).and_then(|()| {
            let delete = DeleteRequest::builder()
                .set_key(Some(key.to_item()))
                .build()
                .map_err(invalid)?;
            Ok((
                KeyId::of(&key),
                WriteRequest::builder().delete_request(delete).build(),
            ))
        });
        self.push::<E>(request)
    }

    async fn send(self) -> Result<BatchWriteOutput> {
        let BatchWrite {
            client,
            requests,
            keys,
            primary,
            error,
        } = self;
        if let Some(error) = error {
            return Err(error);
        }
        let table = client.checked_table()?;
        let Some(primary) = primary else {
            return Ok(BatchWriteOutput::empty());
        };
        let chunk = Chunk {
            client: &client,
            table,
            primary,
            keys: &keys,
        };
        let outputs: Vec<BatchWriteOutput> = stream::iter(chunks(requests, BATCH_WRITE_CHUNK))
            .map(|requests| chunk.write(requests))
            .buffer_unordered(client.inner.batch.concurrency.max(1))
            .collect()
            .await;
        let mut output = BatchWriteOutput::empty();
        for chunk in outputs {
            output.written = output.written.saturating_add(chunk.written);
            output.unprocessed.extend(chunk.unprocessed);
            output.errors.extend(chunk.errors);
        }
        Ok(output)
    }
}

/// What every chunk of one batch write shares.
#[derive(Clone, Copy)]
struct Chunk<'a> {
    client: &'a Client,
    table: &'a str,
    primary: &'static IndexModel,
    keys: &'a KeySet<&'static str>,
}

impl Chunk<'_> {
    /// The entity that named the item of a request.
    fn entity_of(&self, request: &WriteRequest) -> &'static str {
        request_item(request)
            .and_then(|item| KeyId::of_item(self.primary, item))
            .and_then(|key| self.keys.get(&key).copied())
            .unwrap_or("unknown")
    }

    fn unprocessed(&self, request: WriteRequest) -> UnprocessedWrite {
        let entity = self.entity_of(&request);
        let key = request_item(&request)
            .and_then(|item| KeyId::of_item(self.primary, item))
            .map(|key| key.into_item(self.primary))
            .unwrap_or_default();
        UnprocessedWrite {
            entity,
            key,
            request: Some(request),
        }
    }

    fn failed(&self, key: KeyId) -> UnprocessedWrite {
        let entity = self.keys.get(&key).copied().unwrap_or("unknown");
        UnprocessedWrite {
            entity,
            key: key.into_item(self.primary),
            request: None,
        }
    }

    async fn write(self, requests: Vec<WriteRequest>) -> BatchWriteOutput {
        let total = requests.len();
        let policy = self.client.inner.batch;
        let outcome = until_processed(policy, requests, |requests, _| async move {
            // The SDK consumes its input and the batch keeps no copy: what a
            // request that fails as a whole reports is its keys, read first.
            // (The SDK resends such a request itself, under the batch
            // policy: `with_batch_retries`.)
            let sent: Vec<KeyId> = requests
                .iter()
                .filter_map(|r| request_item(r).and_then(|i| KeyId::of_item(self.primary, i)))
                .collect();
            let entity = sent
                .first()
                .and_then(|key| self.keys.get(key).copied())
                .unwrap_or("batch");
            let request = self
                .client
                .inner
                .sdk
                .batch_write_item()
                .request_items(self.table, requests);
            let output = with_batch_retries(request.customize(), &policy)
                .send()
                .await
                .map_err(|e| (from_sdk("BatchWriteItem", entity, e), sent))?;
            let unprocessed = output
                .unprocessed_items
                .and_then(|mut u| u.remove(self.table))
                .unwrap_or_default();
            Ok((unprocessed, ()))
        })
        .await;
        let mut output = BatchWriteOutput::empty();
        for request in outcome.unprocessed {
            output.unprocessed.push(self.unprocessed(request));
        }
        if let Some((error, keys)) = outcome.failed {
            output.errors.push(error);
            output
                .unprocessed
                .extend(keys.into_iter().map(|key| self.failed(key)));
        }
        output.written = total.saturating_sub(output.unprocessed.len());
        output
    }
}

impl IntoFuture for BatchWrite {
    type Output = Result<BatchWriteOutput>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

/// The item a put writes, or the key a delete names.
fn request_item(request: &WriteRequest) -> Option<&Item> {
    match (&request.put_request, &request.delete_request) {
        (Some(put), _) => Some(&put.item),
        (None, Some(delete)) => Some(&delete.key),
        (None, None) => None,
    }
}
