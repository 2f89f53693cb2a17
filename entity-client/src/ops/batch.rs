//! `batch_get` (chunks of 100) and `batch_write` (chunks of 25).
//!
//! Unprocessed keys and items are retried with exponential backoff and full
//! jitter ([`BatchPolicy`](crate::BatchPolicy)), several chunks in flight at
//! once. Whatever is still unprocessed when the attempts run out comes back
//! in the output: nothing is dropped. (ElectroDB returns unprocessed items
//! unretried; dynamodb-toolbox retries without backoff.)

use super::BoxFuture;
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::limits::{check_item, check_primary_key, BATCH_GET_CHUNK, BATCH_WRITE_CHUNK};
use crate::Client;
use aws_sdk_dynamodb::types::{DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest};
use entity_core::{Entity, Item, PrimaryKey};
use futures::stream::{self, StreamExt};
use std::collections::{HashMap, HashSet};
use std::future::IntoFuture;

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
}

impl Client {
    /// Reads many items by key. Repeated keys are read once.
    pub fn batch_get<E: Entity>(
        &self,
        keys: impl IntoIterator<Item = PrimaryKey<E>>,
    ) -> BatchGet<E> {
        BatchGet {
            client: self.clone(),
            keys: keys.into_iter().collect(),
            consistent: false,
        }
    }

    /// Starts a batch of puts and deletes, of any entities.
    pub fn batch_write(&self) -> BatchWrite {
        BatchWrite {
            client: self.clone(),
            requests: Vec::new(),
            error: None,
        }
    }
}

impl<E: Entity + Send + 'static> BatchGet<E> {
    /// Strongly consistent reads.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    async fn send(self) -> Result<BatchGetOutput<E>> {
        let mut seen = HashSet::new();
        let mut keys = Vec::with_capacity(self.keys.len());
        for key in self.keys {
            check_primary_key(&key)?;
            if seen.insert((key.pk.clone(), key.sk.clone())) {
                keys.push(key);
            }
        }
        let chunks: Vec<Vec<PrimaryKey<E>>> =
            keys.chunks(BATCH_GET_CHUNK).map(<[_]>::to_vec).collect();
        let client = self.client;
        let consistent = self.consistent;
        let results: Vec<Result<BatchGetOutput<E>>> = stream::iter(chunks)
            .map(|chunk| get_chunk(client.clone(), chunk, consistent))
            .buffer_unordered(client.inner.batch.concurrency.max(1))
            .collect()
            .await;
        let mut output = BatchGetOutput {
            items: Vec::new(),
            unprocessed: Vec::new(),
            errors: Vec::new(),
        };
        for result in results {
            let chunk = result?;
            output.items.extend(chunk.items);
            output.unprocessed.extend(chunk.unprocessed);
            output.errors.extend(chunk.errors);
        }
        Ok(output)
    }
}

async fn get_chunk<E: Entity>(
    client: Client,
    chunk: Vec<PrimaryKey<E>>,
    consistent: bool,
) -> Result<BatchGetOutput<E>> {
    let table = client.inner.table.clone();
    let policy = client.inner.batch;
    let mut pending: Vec<Item> = chunk.iter().map(PrimaryKey::to_item).collect();
    let mut items = Vec::new();
    let mut errors = Vec::new();
    let mut attempt = 0;
    while !pending.is_empty() && attempt < policy.max_attempts {
        if attempt > 0 {
            tokio::time::sleep(policy.backoff(attempt)).await;
        }
        attempt += 1;
        let request = KeysAndAttributes::builder()
            .set_keys(Some(pending.clone()))
            .consistent_read(consistent)
            .build()
            .map_err(|e| ValidationError::InvalidRequest(e.to_string()))?;
        let sent = client
            .inner
            .sdk
            .batch_get_item()
            .request_items(&table, request)
            .send()
            .await;
        let mut output = match sent {
            Ok(output) => output,
            // The SDK has retried already: report it, keep the keys as
            // unprocessed, and let the other chunks finish.
            Err(e) => {
                errors.push(from_sdk("BatchGetItem", E::MODEL.name, e));
                break;
            }
        };
        if let Some(found) = output.responses.as_mut().and_then(|r| r.remove(&table)) {
            for item in found {
                match E::from_item(item) {
                    Ok(entity) => items.push(entity),
                    Err(e) => errors.push(e.into()),
                }
            }
        }
        pending = output
            .unprocessed_keys
            .and_then(|mut u| u.remove(&table))
            .map(|k| k.keys)
            .unwrap_or_default();
    }
    let unprocessed = chunk
        .into_iter()
        .filter(|key| pending.contains(&key.to_item()))
        .collect();
    Ok(BatchGetOutput {
        items,
        unprocessed,
        errors,
    })
}

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
    requests: Vec<(&'static str, String, WriteRequest)>,
    error: Option<Error>,
}

impl BatchWrite {
    fn push(mut self, entity: &'static str, key: String, request: Result<WriteRequest>) -> Self {
        match request {
            Ok(request) => self.requests.push((entity, key, request)),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Writes a whole item.
    pub fn put<E: Entity>(self, entity: &E) -> Self {
        let key = format!("{:?}", entity.primary_key());
        let request = entity.to_item().map_err(Error::from).and_then(|item| {
            check_item(E::MODEL, &item)?;
            let put = PutRequest::builder()
                .set_item(Some(item))
                .build()
                .map_err(|e| ValidationError::InvalidRequest(e.to_string()))?;
            Ok(WriteRequest::builder().put_request(put).build())
        });
        self.push(E::MODEL.name, key, request)
    }

    /// Writes many whole items.
    pub fn put_all<'a, E: Entity + 'a>(self, entities: impl IntoIterator<Item = &'a E>) -> Self {
        entities
            .into_iter()
            .fold(self, |batch, entity| batch.put(entity))
    }

    /// Deletes the item with this key.
    pub fn delete<E: Entity>(self, key: PrimaryKey<E>) -> Self {
        let text = format!("{key:?}");
        let request = check_primary_key(&key).map_err(Error::from).and_then(|()| {
            let delete = DeleteRequest::builder()
                .set_key(Some(key.to_item()))
                .build()
                .map_err(|e| ValidationError::InvalidRequest(e.to_string()))?;
            Ok(WriteRequest::builder().delete_request(delete).build())
        });
        self.push(E::MODEL.name, text, request)
    }

    async fn send(self) -> Result<BatchWriteOutput> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let mut seen = HashSet::new();
        for (_, key, _) in &self.requests {
            if !seen.insert(key.as_str()) {
                return Err(ValidationError::DuplicateKey {
                    operation: "batch write",
                    key: key.clone(),
                }
                .into());
            }
        }
        let chunks: Vec<Vec<Pending>> = self
            .requests
            .chunks(BATCH_WRITE_CHUNK)
            .map(|chunk| {
                chunk
                    .iter()
                    .map(|(entity, _, request)| Pending {
                        entity,
                        request: request.clone(),
                    })
                    .collect()
            })
            .collect();
        let client = self.client;
        let results: Vec<Result<BatchWriteOutput>> = stream::iter(chunks)
            .map(|chunk| write_chunk(client.clone(), chunk))
            .buffer_unordered(client.inner.batch.concurrency.max(1))
            .collect()
            .await;
        let mut output = BatchWriteOutput {
            written: 0,
            unprocessed: Vec::new(),
            errors: Vec::new(),
        };
        for result in results {
            let chunk = result?;
            output.written += chunk.written;
            output.unprocessed.extend(chunk.unprocessed);
            output.errors.extend(chunk.errors);
        }
        Ok(output)
    }
}

/// One request of a batch write, with its entity for reporting.
struct Pending {
    entity: &'static str,
    request: WriteRequest,
}

async fn write_chunk(client: Client, chunk: Vec<Pending>) -> Result<BatchWriteOutput> {
    let table = client.inner.table.clone();
    let policy = client.inner.batch;
    let entity_of: HashMap<usize, &'static str> = chunk
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.entity))
        .collect();
    let originals: Vec<WriteRequest> = chunk.into_iter().map(|p| p.request).collect();
    let mut pending = originals.clone();
    let total = pending.len();
    let mut errors = Vec::new();
    let mut attempt = 0;
    while !pending.is_empty() && attempt < policy.max_attempts {
        if attempt > 0 {
            tokio::time::sleep(policy.backoff(attempt)).await;
        }
        attempt += 1;
        let sent = client
            .inner
            .sdk
            .batch_write_item()
            .request_items(&table, pending.clone())
            .send()
            .await;
        let output = match sent {
            Ok(output) => output,
            // The SDK has retried already: report it, keep the requests as
            // unprocessed, and let the other chunks finish.
            Err(e) => {
                errors.push(from_sdk(
                    "BatchWriteItem",
                    entity_of.get(&0).copied().unwrap_or("batch"),
                    e,
                ));
                break;
            }
        };
        pending = output
            .unprocessed_items
            .and_then(|mut u| u.remove(&table))
            .unwrap_or_default();
    }
    let unprocessed = pending
        .into_iter()
        .map(|request| {
            let entity = originals
                .iter()
                .position(|o| *o == request)
                .and_then(|i| entity_of.get(&i).copied())
                .unwrap_or("unknown");
            UnprocessedWrite { entity, request }
        })
        .collect::<Vec<_>>();
    Ok(BatchWriteOutput {
        written: total - unprocessed.len(),
        unprocessed,
        errors,
    })
}

impl<E: Entity + Send + 'static> IntoFuture for BatchGet<E> {
    type Output = Result<BatchGetOutput<E>>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

impl IntoFuture for BatchWrite {
    type Output = Result<BatchWriteOutput>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}
