//! One chunk of a batch write (up to 25 requests): sent, its unprocessed
//! requests retried under the batch policy, and what is left reported by
//! key with the entity that named it.
//!
//! Each chunk carries the keys of its own requests, so a write of any size
//! keeps only the chunks in flight, never a map of every key.

use super::until_processed;
use super::with_batch_retries;
use crate::error::{from_sdk, Error};
use crate::keys::{KeyId, KeySet};
use crate::Client;
use aws_sdk_dynamodb::types::WriteRequest;
use entity_core::{IndexModel, Item};

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

/// A streamed entity the batch did not send: it could not be converted or
/// stamped (`Error::Encode`), broke a limit, or named a key the batch had
/// already named (`ValidationError::DuplicateKey`). The rest of the stream
/// is still written.
#[derive(Debug)]
pub struct RefusedWrite {
    /// Its position among the streamed entities, from 0 (every
    /// `put_iter`/`put_stream` of the batch, in the order they were added).
    pub position: usize,
    /// The entity.
    pub entity: &'static str,
    /// Why it was refused.
    pub error: Error,
}

/// What a batch write did, and what it could not.
///
/// Every put and delete is accounted for once: `written`, plus the length
/// of `unprocessed`, plus the length of `refused`, is the number of
/// requests the batch was given.
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
    /// Streamed entities that were never sent (see [`RefusedWrite`]).
    pub refused: Vec<RefusedWrite>,
}

impl BatchWriteOutput {
    /// True when every put and delete was written.
    pub fn is_complete(&self) -> bool {
        self.unprocessed.is_empty() && self.errors.is_empty() && self.refused.is_empty()
    }

    pub(super) fn empty() -> Self {
        Self {
            written: 0,
            unprocessed: Vec::new(),
            errors: Vec::new(),
            refused: Vec::new(),
        }
    }

    pub(super) fn merge(mut self, other: Self) -> Self {
        self.written = self.written.saturating_add(other.written);
        self.unprocessed.extend(other.unprocessed);
        self.errors.extend(other.errors);
        self.refused.extend(other.refused);
        self
    }
}

/// A write ready to send.
pub(super) struct Pending {
    /// The table key it names.
    pub key: KeyId,
    /// The entity that named it.
    pub entity: &'static str,
    pub request: WriteRequest,
}

/// What every chunk of one batch write shares.
#[derive(Clone, Copy)]
pub(super) struct Chunks<'a> {
    pub client: &'a Client,
    pub table: &'a str,
    pub primary: &'static IndexModel,
}

/// The entities that named a chunk's keys.
struct Named<'a> {
    primary: &'static IndexModel,
    entities: &'a KeySet<&'static str>,
}

impl Named<'_> {
    fn key_of(&self, request: &WriteRequest) -> Option<KeyId> {
        request_item(request).and_then(|item| KeyId::of_item(self.primary, item))
    }

    fn entity(&self, key: Option<&KeyId>) -> &'static str {
        key.and_then(|key| self.entities.get(key).copied())
            .unwrap_or("unknown")
    }

    fn unprocessed(&self, request: WriteRequest) -> UnprocessedWrite {
        let key = self.key_of(&request);
        UnprocessedWrite {
            entity: self.entity(key.as_ref()),
            key: key
                .map(|key| key.into_item(self.primary))
                .unwrap_or_default(),
            request: Some(request),
        }
    }

    fn failed(&self, key: KeyId) -> UnprocessedWrite {
        UnprocessedWrite {
            entity: self.entity(Some(&key)),
            key: key.into_item(self.primary),
            request: None,
        }
    }
}

impl Chunks<'_> {
    /// Sends one chunk until nothing is left unprocessed or the policy's
    /// attempts run out.
    pub(super) async fn write(self, chunk: Vec<Pending>) -> BatchWriteOutput {
        let total = chunk.len();
        let mut entities = KeySet::default();
        let mut requests = Vec::with_capacity(total);
        for Pending {
            key,
            entity,
            request,
        } in chunk
        {
            // The batch refused repeats before cutting chunks.
            let _ = entities.insert(key, entity);
            requests.push(request);
        }
        let named = Named {
            primary: self.primary,
            entities: &entities,
        };
        let policy = self.client.inner.batch;
        let outcome = until_processed(policy, requests, |requests, _| {
            // The SDK consumes its input and the batch keeps no copy: what a
            // request that fails as a whole reports is its keys, read first.
            // (The SDK resends such a request itself, under the batch
            // policy: `with_batch_retries`.)
            let sent: Vec<KeyId> = requests.iter().filter_map(|r| named.key_of(r)).collect();
            let entity = match sent.first() {
                Some(key) => named.entity(Some(key)),
                None => "batch",
            };
            let request = self
                .client
                .inner
                .sdk
                .batch_write_item()
                .request_items(self.table, requests);
            async move {
                let output = with_batch_retries(request.customize(), &policy)
                    .send()
                    .await
                    .map_err(|e| {
                        (
                            from_sdk("BatchWriteItem", entity, e).in_table(self.table),
                            sent,
                        )
                    })?;
                let unprocessed = output
                    .unprocessed_items
                    .and_then(|mut u| u.remove(self.table))
                    .unwrap_or_default();
                Ok((unprocessed, ()))
            }
        })
        .await;
        let mut output = BatchWriteOutput::empty();
        for request in outcome.unprocessed {
            output.unprocessed.push(named.unprocessed(request));
        }
        if let Some((error, keys)) = outcome.failed {
            output.errors.push(error);
            output
                .unprocessed
                .extend(keys.into_iter().map(|key| named.failed(key)));
        }
        output.written = total.saturating_sub(output.unprocessed.len());
        output
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
