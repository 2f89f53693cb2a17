//! One chunk of a batch write (up to 25 requests): sent, its unprocessed
//! requests retried under the batch policy, and what is left reported by
//! key with the entity that named it.
//!
//! Each chunk carries the keys of its own requests, so a write of any size
//! keeps only the chunks in flight, never a map of every key.

use super::{until_processed, RESERVE_AT_MOST};
use crate::error::{from_sdk, Error};
use crate::keys::{KeyId, KeyRef};
use crate::limits::BATCH_WRITE_CHUNK;
use crate::rate_limit::Kind;
use crate::Client;
use aws_sdk_dynamodb::types::WriteRequest;
use entity_core::{IndexModel, Item};
use std::ops::Range;
use std::slice::SliceIndex;
use std::sync::Arc;

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

    pub(super) fn merge(&mut self, other: Self) {
        self.written = self.written.saturating_add(other.written);
        self.unprocessed.extend(other.unprocessed);
        self.errors.extend(other.errors);
        self.refused.extend(other.refused);
    }
}

/// Requests of a batch write, built one after another, with the table key
/// of each copied as it is built (the SDK consumes what it sends, and a
/// request that fails as a whole reports its keys), and the streamed
/// entities refused while they were built: a chunk being filled from a
/// stream (up to 25 requests), or every request the builder built itself
/// (cut into chunks when sent).
pub(super) struct Chunk {
    requests: Vec<WriteRequest>,
    named: Named,
    refused: Vec<RefusedWrite>,
}

impl Chunk {
    /// Room for `requests` requests.
    pub(super) fn with_capacity(requests: usize) -> Self {
        Self {
            requests: Vec::with_capacity(requests),
            named: Named {
                keys: Vec::with_capacity(requests),
                room: requests,
                ..Named::default()
            },
            refused: Vec::new(),
        }
    }

    /// Room for `additional` more requests (at most
    /// [`RESERVE_AT_MOST`] ahead of time).
    pub(super) fn reserve(&mut self, additional: usize) {
        let additional = additional.min(RESERVE_AT_MOST);
        self.requests.reserve(additional);
        self.named.keys.reserve(additional);
        self.named.room = self.named.room.saturating_add(additional);
    }

    /// True when it holds as many requests as one BatchWriteItem takes.
    pub(super) fn is_full(&self) -> bool {
        self.requests.len() >= BATCH_WRITE_CHUNK
    }

    /// Copies the table key of the request about to be pushed, named by
    /// `entity`.
    pub(super) fn copy_key(&mut self, entity: &'static str, key: KeyRef<'_>) -> NamedKey {
        self.named.copy(entity, key)
    }

    /// Adds a request, whose key [`copy_key`](Self::copy_key) copied.
    pub(super) fn push(&mut self, key: NamedKey, request: WriteRequest) {
        self.named.keys.push(key);
        self.requests.push(request);
    }

    /// Adds a streamed entity that is not sent.
    pub(super) fn refuse(&mut self, refused: RefusedWrite) {
        self.refused.push(refused);
    }

    /// Ready to send as it is, unless it holds nothing at all.
    pub(super) fn ready(self) -> Option<Ready> {
        if self.requests.is_empty() && self.refused.is_empty() {
            return None;
        }
        let keys = 0..self.requests.len();
        Some(Ready {
            requests: self.requests,
            named: Arc::new(self.named),
            keys,
            refused: self.refused,
        })
    }

    /// Cut into chunks to send: full ones, then what is left over (fewer
    /// than 25 requests), the start of the next chunk to fill, with room
    /// for a chunk when `more` requests will be added.
    pub(super) fn cut(self, more: bool) -> (Cut, Chunk) {
        let whole = self.requests.len() - self.requests.len() % BATCH_WRITE_CHUNK;
        let mut requests = self.requests;
        let left: Vec<WriteRequest> = requests.split_off(whole);
        let named = Arc::new(self.named);
        let room = if more || !left.is_empty() {
            BATCH_WRITE_CHUNK
        } else {
            0
        };
        let mut rest = Chunk::with_capacity(room);
        for (request, (key, entity)) in left.into_iter().zip(named.all(whole..)) {
            let copied = rest.copy_key(entity, key);
            rest.push(copied, request);
        }
        let cut = Cut {
            requests: requests.into_iter(),
            named,
            next: 0,
        };
        (cut, rest)
    }
}

/// The builder's own requests, cut into full chunks as they are sent
/// (sharing one copy of their keys).
pub(super) struct Cut {
    requests: std::vec::IntoIter<WriteRequest>,
    named: Arc<Named>,
    /// The key of the next request.
    next: usize,
}

impl Iterator for Cut {
    type Item = Ready;

    fn next(&mut self) -> Option<Ready> {
        let requests: Vec<WriteRequest> = self.requests.by_ref().take(BATCH_WRITE_CHUNK).collect();
        if requests.is_empty() {
            return None;
        }
        let keys = self.next..self.next + requests.len();
        self.next = keys.end;
        Some(Ready {
            requests,
            named: Arc::clone(&self.named),
            keys,
            refused: Vec::new(),
        })
    }
}

/// A chunk ready to send: up to 25 requests, their keys (a window of a
/// copy a few chunks may share), and the streamed entities refused while it
/// was built.
pub(super) struct Ready {
    requests: Vec<WriteRequest>,
    named: Arc<Named>,
    /// Which of `named`'s keys are these requests'.
    keys: Range<usize>,
    refused: Vec<RefusedWrite>,
}

impl Ready {
    /// Its requests' keys, with their entities.
    fn all(&self) -> impl Iterator<Item = (KeyRef<'_>, &'static str)> + '_ {
        self.named.all(self.keys.clone())
    }

    /// The entity that named `key`.
    fn entity(&self, key: KeyRef<'_>) -> &'static str {
        self.all()
            .find(|(named, _)| *named == key)
            .map_or("unknown", |(_, entity)| entity)
    }

    /// A request the server handed back unprocessed, on a table keyed as
    /// `primary`.
    fn unprocessed(&self, primary: &IndexModel, request: WriteRequest) -> UnprocessedWrite {
        let key = request_item(&request).and_then(|item| KeyRef::of_item(primary, item));
        UnprocessedWrite {
            entity: key.map_or("unknown", |key| self.entity(key)),
            key: key
                .map(|key| key.into_id().into_item(primary))
                .unwrap_or_default(),
            request: Some(request),
        }
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
/// one after another in one buffer.
#[derive(Default)]
struct Named {
    /// Every key's values, one after another.
    text: String,
    /// Per request, in order: its key's place in `text` and its entity.
    keys: Vec<NamedKey>,
    /// How many keys `text` is to hold: it is given room for that many as
    /// long as the first.
    room: usize,
}

/// Where one key's values lie in [`Named::text`], and its entity.
#[derive(Clone, Copy)]
pub(super) struct NamedKey {
    start: usize,
    pk_end: usize,
    /// Where the sort key ends (it starts at `pk_end`), on a table with one.
    sk_end: Option<usize>,
    entity: &'static str,
}

impl Named {
    /// Copies a key's values.
    fn copy(&mut self, entity: &'static str, key: KeyRef<'_>) -> NamedKey {
        let (pk, sk) = key.values();
        if self.text.capacity() == 0 {
            // Room for the keys to come, as long as the first, in one
            // allocation (of at most a mebibyte: a long first key says
            // little of the rest).
            let length = pk.len() + sk.map_or(0, str::len);
            self.text
                .reserve(self.room.max(1).saturating_mul(length).min(1 << 20));
        }
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
    }

    /// The keys in `range` (of the requests' places), with their entities.
    fn all(
        &self,
        range: impl SliceIndex<[NamedKey], Output = [NamedKey]>,
    ) -> impl Iterator<Item = (KeyRef<'_>, &'static str)> + '_ {
        // Whole keys were copied in, so every place is a key's boundary.
        let text = |from: usize, to: usize| self.text.get(from..to).unwrap_or("");
        let keys = self.keys.get(range).unwrap_or_default();
        keys.iter().map(move |named| {
            let pk = text(named.start, named.pk_end);
            let sk = named.sk_end.map(|end| text(named.pk_end, end));
            (KeyRef::new(pk, sk), named.entity)
        })
    }
}

/// The write of a request that failed as a whole.
fn failed(primary: &IndexModel, key: KeyRef<'_>, entity: &'static str) -> UnprocessedWrite {
    UnprocessedWrite {
        entity,
        key: key.into_id().into_item(primary),
        request: None,
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
    pub(super) async fn write(self, mut chunk: Ready) -> BatchWriteOutput {
        let requests = std::mem::take(&mut chunk.requests);
        let total = requests.len();
        let mut output = BatchWriteOutput {
            refused: std::mem::take(&mut chunk.refused),
            ..BatchWriteOutput::empty()
        };
        if total == 0 {
            return output;
        }
        let chunk = &chunk;
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
                        .map(|key| (key.into_id(), chunk.entity(key)))
                        .collect(),
                ),
            };
            let entity = match &sent {
                Sent::All => chunk.all().next().map(|(_, entity)| entity),
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
        let primary = self.primary;
        for request in outcome.unprocessed {
            output.unprocessed.push(chunk.unprocessed(primary, request));
        }
        if let Some((error, sent)) = outcome.failed {
            output.errors.push(error);
            match sent {
                Sent::All => output.unprocessed.extend(
                    chunk
                        .all()
                        .map(|(key, entity)| failed(primary, key, entity)),
                ),
                Sent::These(keys) => output.unprocessed.extend(
                    keys.iter()
                        .map(|(key, entity)| failed(primary, key.borrowed(), entity)),
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
