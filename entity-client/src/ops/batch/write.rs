//! `batch_write`: puts and deletes of any entities, in chunks of 25.

use super::{chunks, until_processed};
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::keys::{KeyId, KeySet};
use crate::limits::{check_item, check_primary_key, BATCH_WRITE_CHUNK};
use crate::ops::BoxFuture;
use crate::Client;
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
use entity_core::{Entity, IndexModel, PrimaryKey};
use futures::stream::{self, StreamExt};
use std::future::IntoFuture;

/// A write that a batch could not do.
#[derive(Debug, Clone, PartialEq)]
pub struct UnprocessedWrite {
    /// The entity.
    pub entity: &'static str,
    /// The request: a put (with the item) or a delete (with the key).
    pub request: WriteRequest,
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

    /// Writes a whole item.
    pub fn put<E: Entity>(self, entity: &E) -> Self {
        let request = entity.to_item().map_err(Error::from).and_then(|item| {
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
    pub fn put_all<'a, E: Entity + 'a>(self, entities: impl IntoIterator<Item = &'a E>) -> Self {
        entities
            .into_iter()
            .fold(self, |batch, entity| batch.put(entity))
    }

    /// Deletes the item with this key.
    pub fn delete<E: Entity>(self, key: PrimaryKey<E>) -> Self {
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
        let item = match (&request.put_request, &request.delete_request) {
            (Some(put), _) => &put.item,
            (None, Some(delete)) => &delete.key,
            (None, None) => return "unknown",
        };
        KeyId::of_item(self.primary, item)
            .and_then(|key| self.keys.get(&key).copied())
            .unwrap_or("unknown")
    }

    fn unprocessed(&self, request: WriteRequest) -> UnprocessedWrite {
        let entity = self.entity_of(&request);
        UnprocessedWrite { entity, request }
    }

    async fn write(self, requests: Vec<WriteRequest>) -> BatchWriteOutput {
        let total = requests.len();
        let policy = self.client.inner.batch;
        let outcome = until_processed(policy, requests, |requests, _| async move {
            // The SDK consumes its input, so a request that fails as a whole
            // can only be resent or reported from a copy: the one copy a
            // batch write makes (chunks are moved, retries send what the
            // server handed back).
            let kept = requests.clone();
            let sent = self
                .client
                .inner
                .sdk
                .batch_write_item()
                .request_items(self.table, requests)
                .send()
                .await;
            let output = match sent {
                Ok(output) => output,
                Err(e) => {
                    let entity = kept.first().map_or("batch", |r| self.entity_of(r));
                    let error = from_sdk("BatchWriteItem", entity, e);
                    // DynamoDB throttles a batch whose every item is
                    // throttled as a whole: it is all unprocessed, retried
                    // under the batch policy like a partial result.
                    if matches!(error, Error::Throttled { .. }) {
                        return Ok((kept, ()));
                    }
                    return Err((error, kept));
                }
            };
            let unprocessed = output
                .unprocessed_items
                .and_then(|mut u| u.remove(self.table))
                .unwrap_or_default();
            Ok((unprocessed, ()))
        })
        .await;
        let mut output = BatchWriteOutput::empty();
        let failed = outcome.failed.map(|(error, kept)| {
            output.errors.push(error);
            kept
        });
        for request in outcome
            .unprocessed
            .into_iter()
            .chain(failed.into_iter().flatten())
        {
            output.unprocessed.push(self.unprocessed(request));
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
