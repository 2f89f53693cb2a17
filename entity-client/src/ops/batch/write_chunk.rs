//! One chunk of a batch write (up to 25 requests): sent, its unprocessed
//! requests retried under the batch policy, and what is left reported by
//! key with the entity that named it.
//!
//! Each chunk carries the keys of its own requests, so a write of any size
//! keeps only the chunks in flight, never a map of every key.

use super::until_processed;
use crate::error::{from_sdk, Error};
use crate::keys::{KeyId, KeyRef};
use crate::rate_limit::Kind;
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
    /// The hash of the table key it names (the batch's
    /// [`KeyHasher`](super::seen::KeyHasher)).
    pub key: u64,
    /// The entity that named it.
    pub entity: &'static str,
    pub request: WriteRequest,
}

impl Pending {
    /// The table key it names, for a message.
    pub(super) fn describe_key(&self, primary: &IndexModel) -> String {
        request_item(&self.request)
            .and_then(|item| KeyRef::of_item(primary, item))
            .map_or_else(|| "(no table key)".to_owned(), |key| key.to_string())
    }
}

/// What every chunk of one batch write shares.
#[derive(Clone, Copy)]
pub(super) struct Chunks<'a> {
    pub client: &'a Client,
    pub table: &'a str,
    pub primary: &'static IndexModel,
}

/// The table keys of a chunk's requests and the entities that named them,
/// copied into one buffer before the first request: the SDK consumes what
/// it sends, and a request that fails as a whole reports its keys.
struct Named {
    primary: &'static IndexModel,
    /// Every key's values, one after another.
    text: String,
    /// Per request, in order: its key's place in `text` and its entity;
    /// `None` for a request without a readable key.
    keys: Vec<Option<NamedKey>>,
}

/// Where one key's values lie in [`Named::text`], and its entity.
#[derive(Clone, Copy)]
struct NamedKey {
    start: usize,
    pk_end: usize,
    /// Where the sort key ends (it starts at `pk_end`), on a table with one.
    sk_end: Option<usize>,
    entity: &'static str,
}

impl Named {
    fn new(primary: &'static IndexModel, requests: usize) -> Self {
        Self {
            primary,
            text: String::new(),
            keys: Vec::with_capacity(requests),
        }
    }

    /// Copies the key of the next request.
    fn add(&mut self, entity: &'static str, request: &WriteRequest) {
        let key = request_item(request).and_then(|item| KeyRef::of_item(self.primary, item));
        let named = key.map(|key| {
            let (pk, sk) = key.values();
            let start = self.text.len();
            self.text.push_str(pk);
            let pk_end = self.text.len();
            let sk_end = sk.map(|sk| {
                self.text.push_str(sk);
                self.text.len()
            });
            NamedKey {
                start,
                pk_end,
                sk_end,
                entity,
            }
        });
        self.keys.push(named);
    }

    /// Every key, with its entity.
    fn all(&self) -> impl Iterator<Item = (KeyRef<'_>, &'static str)> + '_ {
        self.keys.iter().flatten().map(|named| {
            let pk = &self.text[named.start..named.pk_end];
            let sk = named.sk_end.map(|end| &self.text[named.pk_end..end]);
            (KeyRef::new(pk, sk), named.entity)
        })
    }

    /// The entity that named `key`.
    fn entity(&self, key: KeyRef<'_>) -> &'static str {
        self.all()
            .find(|(named, _)| *named == key)
            .map_or("unknown", |(_, entity)| entity)
    }

    /// A request the server handed back unprocessed.
    fn unprocessed(&self, request: WriteRequest) -> UnprocessedWrite {
        let key = request_item(&request).and_then(|item| KeyRef::of_item(self.primary, item));
        UnprocessedWrite {
            entity: key.map_or("unknown", |key| self.entity(key)),
            key: key
                .map(|key| key.into_id().into_item(self.primary))
                .unwrap_or_default(),
            request: Some(request),
        }
    }

    /// The write of a request that failed as a whole.
    fn failed(&self, key: KeyRef<'_>, entity: &'static str) -> UnprocessedWrite {
        UnprocessedWrite {
            entity,
            key: key.into_id().into_item(self.primary),
            request: None,
        }
    }
}

/// The keys of the requests one attempt sends: the whole chunk's on the
/// first attempt (copied once, in [`Named`]), or copies of the ones the
/// server handed back.
enum Sent {
    All,
    These(Vec<(KeyId, &'static str)>),
}

impl Chunks<'_> {
    /// Sends one chunk until nothing is left unprocessed or the policy's
    /// attempts run out.
    pub(super) async fn write(self, chunk: Vec<Pending>) -> BatchWriteOutput {
        let total = chunk.len();
        let mut named = Named::new(self.primary, total);
        let mut requests = Vec::with_capacity(total);
        for Pending {
            entity, request, ..
        } in chunk
        {
            named.add(entity, &request);
            requests.push(request);
        }
        let named = &named;
        let policy = self.client.inner.batch;
        let outcome = until_processed(policy, requests, |requests: Vec<WriteRequest>, attempt| {
            // The SDK consumes its input and the batch keeps no copy: what a
            // request that fails as a whole reports is its keys, read first.
            // (The SDK resends such a request itself, under the batch
            // policy: `Client::batch_sdk`.)
            let sent = match attempt {
                1 => Sent::All,
                _ => Sent::These(
                    requests
                        .iter()
                        .filter_map(request_item)
                        .filter_map(|item| KeyRef::of_item(self.primary, item))
                        .map(|key| (key.into_id(), named.entity(key)))
                        .collect(),
                ),
            };
            let entity = match &sent {
                Sent::All => named.all().next().map(|(_, entity)| entity),
                Sent::These(keys) => keys.first().map(|(_, entity)| *entity),
            };
            let request = self
                .client
                .batch_sdk()
                .batch_write_item()
                .request_items(self.table, requests);
            async move {
                self.client.capacity_ready(Kind::Write).await;
                let output = request.send().await.map_err(|e| {
                    (
                        from_sdk("BatchWriteItem", entity.unwrap_or("batch"), e)
                            .in_table(self.table),
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
        if let Some((error, sent)) = outcome.failed {
            output.errors.push(error);
            match sent {
                Sent::All => output
                    .unprocessed
                    .extend(named.all().map(|(key, entity)| named.failed(key, entity))),
                Sent::These(keys) => output.unprocessed.extend(
                    keys.iter()
                        .map(|(key, entity)| named.failed(key.borrowed(), entity)),
                ),
            }
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
