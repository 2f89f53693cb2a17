//! What queries and scans share: one request per page, a stop after the
//! caller's limit, encrypted cursors, the shapes they are read in (one
//! page, a stream of pages, a stream of items), and the cursor a failed read
//! resumes at.

use crate::cursor;
use crate::error::{from_sdk, Error, Result};
use crate::limits::{wire_count, MAX_LIMIT};
use crate::rate_limit::Kind;
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{Item, Readable};
use futures::stream::{self, Stream, StreamExt, TryStreamExt};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

/// A page of results and the cursor that resumes after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<E> {
    /// The items, in sort key order for a query.
    pub items: Vec<E>,
    /// Resumes the query or scan after this page (`None` when there is no
    /// more). Opaque and encrypted: safe to hand to a web client.
    pub cursor: Option<String>,
}

/// The request a page is read with.
#[derive(Clone)]
pub(crate) enum Source {
    Query {
        index_name: Option<String>,
        key_condition: String,
        ascending: bool,
    },
    Scan {
        /// This segment and the total, for a parallel scan.
        segment: Option<(i32, i32)>,
    },
}

/// Everything a page request needs, computed once.
pub(crate) struct Prepared {
    pub client: Client,
    pub table: String,
    pub entity: &'static str,
    pub source: Source,
    pub filter: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
    pub consistent: bool,
    pub page_size: Option<u32>,
    pub fingerprint: [u8; 32],
    pub strict: bool,
    /// Which items are returned (expired and soft-deleted ones are hidden
    /// unless asked for).
    pub visibility: super::visibility::Visibility,
}

impl Prepared {
    /// The same request with other expression values (a shard's partition
    /// key, for a sharded query).
    pub(crate) fn with_values(&self, values: Option<HashMap<String, AttributeValue>>) -> Self {
        Prepared {
            client: self.client.clone(),
            table: self.table.clone(),
            entity: self.entity,
            source: self.source.clone(),
            filter: self.filter.clone(),
            names: self.names.clone(),
            values,
            consistent: self.consistent,
            page_size: self.page_size,
            fingerprint: self.fingerprint,
            strict: self.strict,
            visibility: self.visibility.clone(),
        }
    }
}

/// Where a read stands: the next start key, how many items it may still
/// return, and whether `Limit` follows that count.
pub(crate) struct State {
    prepared: Arc<Prepared>,
    start: Option<Item>,
    remaining: Option<u32>,
    /// Send the remaining count as `Limit`. Off for `one()` with a filter:
    /// DynamoDB applies `Limit` before the filter, so `Limit=1` would read
    /// one item per request until one matches.
    limit_requests: bool,
    done: bool,
}

impl State {
    /// A read from `start` (a cursor's key) returning at most `limit` items.
    pub(crate) fn new(prepared: Prepared, start: Option<Item>, limit: Option<u32>) -> Result<Self> {
        for (what, count) in [("limit", limit), ("page size", prepared.page_size)] {
            if let Some(count) = count {
                wire_count(what, count, MAX_LIMIT)?;
            }
        }
        Ok(Self {
            prepared: Arc::new(prepared),
            start,
            remaining: limit,
            limit_requests: true,
            done: false,
        })
    }

    /// Nothing can match: no request is sent.
    pub(crate) fn finished(mut self) -> Self {
        self.done = true;
        self
    }

    /// Stops after the first item; `Limit=1` only when no filter of the
    /// caller's can drop the item read.
    pub(crate) fn first_only(mut self, filtered: bool) -> Self {
        self.remaining = Some(1);
        self.limit_requests = !filtered;
        self
    }

    /// This request's `Limit`.
    fn request_limit(&self) -> Result<Option<i32>> {
        let remaining = self.remaining.filter(|_| self.limit_requests);
        let limit = match (remaining, self.prepared.page_size) {
            (Some(r), Some(s)) => Some(r.min(s)),
            (r, s) => r.or(s),
        };
        Ok(limit
            .map(|l| wire_count("limit", l, MAX_LIMIT))
            .transpose()?)
    }
}

/// Sends one request, once the client's capacity budget allows: the
/// items and the LastEvaluatedKey.
pub(crate) async fn send(
    p: &Prepared,
    start: Option<Item>,
    limit: Option<i32>,
) -> Result<(Vec<Item>, Option<Item>)> {
    p.client.capacity_ready(Kind::Read).await;
    let sdk = &p.client.inner.sdk;
    match &p.source {
        Source::Query {
            index_name,
            key_condition,
            ascending,
        } => {
            let output = sdk
                .query()
                .table_name(&p.table)
                .set_index_name(index_name.clone())
                .key_condition_expression(key_condition)
                .set_filter_expression(p.filter.clone())
                .set_expression_attribute_names(p.names.clone())
                .set_expression_attribute_values(p.values.clone())
                .consistent_read(p.consistent)
                .scan_index_forward(*ascending)
                .set_limit(limit)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| from_sdk("Query", p.entity, e).in_table(&p.table))?;
            Ok((output.items.unwrap_or_default(), output.last_evaluated_key))
        }
        Source::Scan { segment } => {
            let output = sdk
                .scan()
                .table_name(&p.table)
                .set_filter_expression(p.filter.clone())
                .set_expression_attribute_names(p.names.clone())
                .set_expression_attribute_values(p.values.clone())
                .consistent_read(p.consistent)
                .set_limit(limit)
                .set_segment(segment.map(|(segment, _)| segment))
                .set_total_segments(segment.map(|(_, total)| total))
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| from_sdk("Scan", p.entity, e).in_table(&p.table))?;
            Ok((output.items.unwrap_or_default(), output.last_evaluated_key))
        }
    }
}

/// One request: the page it returned, and the state after it.
async fn fetch<E: Readable>(mut state: State) -> Result<(Page<E>, State)> {
    let limit = state.request_limit()?;
    let p = &state.prepared;
    let start = state.start.take();
    let resume_at = start.clone();
    let (raw, last) = send(p, start, limit)
        .await
        .map_err(|error| failed(p, resume_at.as_ref(), error))?;
    let items = decode::<E>(raw, p.strict, &p.visibility)?;
    if let Some(remaining) = &mut state.remaining {
        let read = u32::try_from(items.len()).unwrap_or(u32::MAX);
        *remaining = remaining.saturating_sub(read);
        state.done |= *remaining == 0;
    }
    let cursor = match &last {
        Some(key) => Some(cursor::encode(
            &p.client.inner.cursor_secret,
            &p.fingerprint,
            key,
        )?),
        None => None,
    };
    state.done |= last.is_none();
    state.start = last;
    Ok((Page { items, cursor }, state))
}

/// The error of a request sent from `start`: every item before `start` was
/// delivered (as pages, or as items before the next page was asked for) and
/// none after it, so a cursor of `start` resumes exactly there
/// ([`Error::PageFailed`]). A read at its very beginning is resumed by
/// sending it again, and a segment of a parallel scan has no position in the
/// whole scan: their errors come back as they are.
fn failed(p: &Prepared, start: Option<&Item>, error: Error) -> Error {
    let Some(start) = start else {
        return error;
    };
    if matches!(p.source, Source::Scan { segment: Some(_) }) {
        return error;
    }
    match cursor::encode(&p.client.inner.cursor_secret, &p.fingerprint, start) {
        Ok(cursor) => Error::PageFailed {
            cursor,
            source: Box::new(error),
        },
        Err(_) => error,
    }
}

/// Runs a read that hands the caller nothing until it is done (one page,
/// `all`, `one`): when one of its requests fails, the caller has received
/// none of its items, so the failure resumes where the read began.
async fn delivered_whole<T, F>(state: Result<State>, read: impl FnOnce(State) -> F) -> Result<T>
where
    F: Future<Output = Result<T>>,
{
    let state = state?;
    let prepared = Arc::clone(&state.prepared);
    let origin = state.start.clone();
    read(state).await.map_err(|error| match error {
        Error::PageFailed { source, .. } => failed(&prepared, origin.as_ref(), *source),
        other => other,
    })
}

/// The items of `E` among `raw`: another entity's item (or another
/// version's that no upgrade reads) is skipped, or an error when the caller
/// asked to see such items; an expired or soft-deleted one is skipped
/// unless the caller asked for those.
fn decode<E: Readable>(
    raw: Vec<Item>,
    strict: bool,
    visibility: &super::visibility::Visibility,
) -> Result<Vec<E>> {
    let mut items = Vec::with_capacity(raw.len());
    for item in raw {
        items.extend(decode_one(item, strict, visibility)?);
    }
    Ok(items)
}

/// One item of [`decode`]: `None` when it is skipped.
pub(crate) fn decode_one<E: Readable>(
    item: Item,
    strict: bool,
    visibility: &super::visibility::Visibility,
) -> Result<Option<E>> {
    if !visibility.shows(&item) {
        return Ok(None);
    }
    if strict {
        Ok(Some(E::read_strict(item)?))
    } else {
        Ok(E::read(item)?)
    }
}

/// A lazy stream of pages, one per request.
pub(crate) fn pages<E: Readable + Send + 'static>(
    state: Result<State>,
) -> impl Stream<Item = Result<Page<E>>> + Send + 'static {
    stream::try_unfold(Some(state), |state| async move {
        let state = match state {
            None => return Ok(None),
            Some(state) => state?,
        };
        if state.done {
            return Ok(None);
        }
        let (page, next) = fetch::<E>(state).await?;
        Ok(Some((page, Some(Ok(next)))))
    })
}

/// A lazy stream of items across pages.
pub(crate) fn items<E: Readable + Send + 'static>(
    state: Result<State>,
) -> impl Stream<Item = Result<E>> + Send + 'static {
    pages::<E>(state)
        .map_ok(|page| stream::iter(page.items.into_iter().map(Ok)))
        .try_flatten()
}

/// The first item, if any.
pub(crate) async fn first<E: Readable + Send + 'static>(state: Result<State>) -> Result<Option<E>> {
    delivered_whole(state, |state| async {
        let items = items::<E>(Ok(state));
        futures::pin_mut!(items);
        items.next().await.transpose()
    })
    .await
}

/// Every item, up to the limit.
pub(crate) async fn all<E: Readable + Send + 'static>(state: Result<State>) -> Result<Vec<E>> {
    delivered_whole(state, |state| items::<E>(Ok(state)).try_collect()).await
}

/// One page: up to the limit (or page size) items, and a cursor when more
/// may follow.
pub(crate) async fn page<E: Readable>(state: Result<State>) -> Result<Page<E>> {
    delivered_whole(state, page_from).await
}

async fn page_from<E: Readable>(mut state: State) -> Result<Page<E>> {
    let target = state.remaining.or(state.prepared.page_size);
    state.remaining = target;
    let mut items = Vec::new();
    loop {
        if state.done {
            return Ok(Page {
                items,
                cursor: None,
            });
        }
        let (page, next) = fetch::<E>(state).await?;
        items.extend(page.items);
        let full = target.is_some_and(|t| usize::try_from(t).is_ok_and(|t| items.len() >= t));
        if full || next.done {
            return Ok(Page {
                items,
                cursor: page.cursor,
            });
        }
        state = next;
    }
}

/// The start key inside `cursor`, once it opens for this request and
/// `check` accepts it.
pub(crate) fn resume(
    client: &Client,
    fingerprint: &[u8; 32],
    cursor: Option<&str>,
    check: impl FnOnce(&Item) -> Result<()>,
) -> Result<Option<Item>> {
    let Some(text) = cursor else {
        return Ok(None);
    };
    let key = cursor::decode(&client.inner.cursor_secret, fingerprint, text)?;
    check(&key)?;
    Ok(Some(key))
}
