//! Queries of write-sharded partitions (`#[pk(status, shards = 10)]`):
//! every shard is read concurrently (one page in flight per shard) and the
//! results are merged in sort key order, a k-way merge over a binary heap
//! of each shard's next item, compared as DynamoDB orders the sort key
//! (`S` by UTF-8 bytes, `N` numerically, `B` bytewise), ties by shard
//! number. An index with no sort key comes shard by shard, each in the
//! server's order.
//!
//! One cursor holds every shard's position: not started, after the last
//! item *delivered* from it (not its page's LastEvaluatedKey: items read but
//! still buffered were not delivered), or done. Resuming reads each
//! unfinished shard from its position, so nothing comes twice and nothing
//! is skipped, whatever page sizes the reads use.

use super::paging::{self, Page, Prepared};
use crate::cursor::{self, ShardPosition};
use crate::error::{Error, Result};
use crate::limits::{wire_count, MAX_LIMIT};
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{Item, Readable, Sharding};
use futures::stream::{self, Stream, TryStreamExt};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// A sharded query in progress.
pub(crate) struct Sharded<E> {
    /// The request as the caller built it (its fingerprint seals cursors).
    shared: Arc<Prepared>,
    shards: Vec<Shard<E>>,
    /// The next item of every shard that has one buffered.
    heap: BinaryHeap<Head>,
    /// What a position keeps of an item: the table's and the index's keys.
    key_attributes: Vec<&'static str>,
    sort_attribute: Option<&'static str>,
    ascending: bool,
    remaining: Option<u32>,
    /// Send the remaining count as `Limit` (see `paging::State`).
    limit_requests: bool,
}

struct Shard<E> {
    prepared: Arc<Prepared>,
    /// After the last item delivered from this shard (or not started).
    delivered: ShardPosition,
    /// Where the next request starts (`Some(None)`: at the beginning);
    /// `None` once the server said there is no more.
    next: Option<Option<Item>>,
    /// Read, not yet delivered.
    buffer: VecDeque<Buffered<E>>,
}

struct Buffered<E> {
    sort: SortValue,
    key: Item,
    item: E,
}

impl<E> Shard<E> {
    fn needs_request(&self) -> bool {
        self.buffer.is_empty() && self.next.is_some()
    }

    fn finished(&self) -> bool {
        self.buffer.is_empty() && self.next.is_none()
    }
}

impl<E: Readable> Sharded<E> {
    /// A read of every shard of `sharding` from `positions` (a cursor's;
    /// `None`: from the start), returning at most `limit` items. `base` is
    /// the request with the unsharded partition key at `:pk`.
    pub(crate) fn new(
        base: Prepared,
        sharding: &Sharding,
        pk_attribute: &'static str,
        positions: Option<Vec<ShardPosition>>,
        limit: Option<u32>,
    ) -> Result<Self> {
        for (what, count) in [("limit", limit), ("page size", base.page_size)] {
            if let Some(count) = count {
                wire_count(what, count, MAX_LIMIT)?;
            }
        }
        let count = sharding.spec.count;
        let positions = positions.unwrap_or_else(|| vec![ShardPosition::NotStarted; count.into()]);
        if positions.len() != usize::from(count) {
            return Err(Error::InvalidCursor {
                reason: "it holds another number of shards",
            });
        }
        let Some(AttributeValue::S(pk)) = base.values.as_ref().and_then(|v| v.get(":pk")) else {
            return Err(Error::InvalidCursor {
                reason: "the query has no partition key",
            });
        };
        let pk = pk.clone();
        let shards = (0..count)
            .zip(positions)
            .map(|(n, position)| {
                let mut values = base.values.clone().unwrap_or_default();
                values.insert(
                    ":pk".to_owned(),
                    AttributeValue::S(sharding.spec.key(&pk, n)),
                );
                let next = match &position {
                    ShardPosition::NotStarted => Some(None),
                    ShardPosition::After(key) => Some(Some(key.clone())),
                    ShardPosition::Done => None,
                };
                Shard {
                    prepared: Arc::new(base.with_values(Some(values))),
                    delivered: position,
                    next,
                    buffer: VecDeque::new(),
                }
            })
            .collect();
        let (table_pk, table_sk) = sharding.table_keys;
        let mut key_attributes = Vec::new();
        for attribute in [Some(table_pk), table_sk, Some(pk_attribute)]
            .into_iter()
            .chain([sharding.sort_attribute])
            .flatten()
        {
            if !key_attributes.contains(&attribute) {
                key_attributes.push(attribute);
            }
        }
        let ascending = match &base.source {
            paging::Source::Query { ascending, .. } => *ascending,
            paging::Source::Scan { .. } => true,
        };
        Ok(Self {
            shared: Arc::new(base),
            shards,
            heap: BinaryHeap::new(),
            key_attributes,
            sort_attribute: sharding.sort_attribute,
            ascending,
            remaining: limit,
            limit_requests: true,
        })
    }

    /// Nothing can match: no request is sent.
    pub(crate) fn finished(mut self) -> Self {
        for shard in &mut self.shards {
            shard.next = None;
        }
        self
    }

    /// Stops after the first item (see `paging::State::first_only`).
    pub(crate) fn first_only(mut self, filtered: bool) -> Self {
        self.remaining = Some(1);
        self.limit_requests = !filtered;
        self
    }

    fn is_done(&self) -> bool {
        self.remaining == Some(0) || self.shards.iter().all(Shard::finished)
    }

    /// Every shard's position after what was delivered.
    fn positions(&self) -> Vec<ShardPosition> {
        self.shards
            .iter()
            .map(|shard| match shard.finished() {
                true => ShardPosition::Done,
                false => shard.delivered.clone(),
            })
            .collect()
    }

    /// The cursor after what was delivered; `None` when every shard is done.
    fn cursor(&self) -> Result<Option<String>> {
        if self.shards.iter().all(Shard::finished) {
            return Ok(None);
        }
        let secret = &self.shared.client.inner.cursor_secret;
        cursor::encode_shards(secret, &self.shared.fingerprint, &self.positions()).map(Some)
    }

    /// The error of a request made after `positions` were reached: a
    /// cursor of them resumes exactly there ([`Error::PageFailed`]); a read
    /// that had delivered nothing returns the error as it is.
    fn failed_at(&self, positions: &[ShardPosition], error: Error) -> Error {
        if positions.iter().all(|p| *p == ShardPosition::NotStarted) {
            return error;
        }
        let secret = &self.shared.client.inner.cursor_secret;
        match cursor::encode_shards(secret, &self.shared.fingerprint, positions) {
            Ok(cursor) => Error::PageFailed {
                cursor,
                source: Box::new(error),
            },
            Err(_) => error,
        }
    }

    /// Each request's `Limit`: every shard may hold all the items still to
    /// return, so each is asked for that many (read capacity is spent on up
    /// to `shards` times the limit; the merge keeps the first ones).
    fn request_limit(&self) -> Result<Option<i32>> {
        let remaining = self.remaining.filter(|_| self.limit_requests);
        let limit = match (remaining, self.shared.page_size) {
            (Some(r), Some(s)) => Some(r.min(s)),
            (r, s) => r.or(s),
        };
        Ok(limit
            .map(|l| wire_count("limit", l, MAX_LIMIT))
            .transpose()?)
    }

    /// Reads the next page of every shard whose buffer is empty, all at
    /// once.
    async fn read_shards(&mut self) -> Result<()> {
        let limit = self.request_limit()?;
        let waiting: Vec<usize> = (0..self.shards.len())
            .filter(|&i| self.shards[i].needs_request())
            .collect();
        let requests = waiting.iter().map(|&i| {
            let prepared = Arc::clone(&self.shards[i].prepared);
            let start = self.shards[i].next.clone().flatten();
            async move { paging::send(&prepared, start, limit).await }
        });
        let pages = futures::future::join_all(requests).await;
        for (i, page) in waiting.into_iter().zip(pages) {
            let (raw, last) = page.map_err(|error| self.failed_at(&self.positions(), error))?;
            self.buffer(i, raw)?;
            self.shards[i].next = last.map(Some);
        }
        Ok(())
    }

    /// Decodes a page of shard `i` into its (empty) buffer.
    fn buffer(&mut self, i: usize, raw: Vec<Item>) -> Result<()> {
        let p = Arc::clone(&self.shared);
        for item in raw {
            let key: Item = (self.key_attributes.iter())
                .filter_map(|a| item.get(*a).map(|v| ((*a).to_owned(), v.clone())))
                .collect();
            let sort = SortValue::of(self.sort_attribute.and_then(|a| item.get(a)));
            if let Some(item) = paging::decode_one::<E>(item, p.strict, &p.visibility)? {
                self.shards[i]
                    .buffer
                    .push_back(Buffered { sort, key, item });
            }
        }
        self.push_head(i);
        Ok(())
    }

    fn push_head(&mut self, i: usize) {
        if let Some(front) = self.shards[i].buffer.front() {
            self.heap.push(Head {
                sort: front.sort.clone(),
                shard: i,
                ascending: self.ascending,
            });
        }
    }

    /// Up to `max` items in merged order: the next items that can be
    /// ordered with what is read, after reading the shards that ran out.
    /// Empty only when the read is done.
    async fn next_batch(&mut self, max: usize) -> Result<Vec<E>> {
        let mut out = Vec::new();
        loop {
            if self.remaining == Some(0) || out.len() >= max.max(1) {
                return Ok(out);
            }
            // A shard that ran out may hold the next item: read it first.
            if self.shards.iter().any(Shard::needs_request) {
                if !out.is_empty() {
                    return Ok(out);
                }
                self.read_shards().await?;
                continue;
            }
            let Some(head) = self.heap.pop() else {
                return Ok(out); // every shard is done
            };
            let Some(next) = self.shards[head.shard].buffer.pop_front() else {
                continue;
            };
            self.shards[head.shard].delivered = ShardPosition::After(next.key);
            self.push_head(head.shard);
            if let Some(remaining) = &mut self.remaining {
                *remaining -= 1;
            }
            out.push(next.item);
        }
    }

    /// The error of a read that hands the caller nothing until it is done
    /// (one page, `all`, `one`): it resumes where the read began, at
    /// `origin`.
    fn failed_whole(&self, origin: &[ShardPosition], error: Error) -> Error {
        match error {
            Error::PageFailed { source, .. } => self.failed_at(origin, *source),
            other => other,
        }
    }

    /// Up to `target` items (all when `None`).
    async fn read_up_to(&mut self, target: Option<u32>) -> Result<Vec<E>> {
        let target = page_target(target);
        let mut items = Vec::new();
        while items.len() < target && !self.is_done() {
            items.extend(self.next_batch(target - items.len()).await?);
        }
        Ok(items)
    }
}

/// A lazy stream of pages: each holds the items that could be merged
/// before a shard needed another request (at most the page size).
pub(crate) fn pages<E: Readable + Send + 'static>(
    state: Result<Sharded<E>>,
) -> impl Stream<Item = Result<Page<E>>> + Send + 'static {
    stream::try_unfold(Some(state), |state| async move {
        let mut state = match state {
            None => return Ok(None),
            Some(state) => state?,
        };
        if state.is_done() {
            return Ok(None);
        }
        let max = page_target(state.shared.page_size);
        let items = state.next_batch(max).await?;
        if items.is_empty() {
            return Ok(None);
        }
        let cursor = state.cursor()?;
        Ok(Some((Page { items, cursor }, Some(Ok(state)))))
    })
}

/// A lazy stream of items across shards, in merged order.
pub(crate) fn items<E: Readable + Send + 'static>(
    state: Result<Sharded<E>>,
) -> impl Stream<Item = Result<E>> + Send + 'static {
    pages::<E>(state)
        .map_ok(|page| stream::iter(page.items.into_iter().map(Ok)))
        .try_flatten()
}

/// One page: up to the limit (or page size) items, everything when neither
/// is set, and a cursor when more may follow.
pub(crate) async fn page<E: Readable + Send + 'static>(
    state: Result<Sharded<E>>,
) -> Result<Page<E>> {
    let mut state = state?;
    let target = state.remaining.or(state.shared.page_size);
    state.remaining = target;
    let origin = state.positions();
    match state.read_up_to(target).await {
        Ok(items) => Ok(Page {
            items,
            cursor: state.cursor()?,
        }),
        Err(error) => Err(state.failed_whole(&origin, error)),
    }
}

/// Every item, up to the limit.
pub(crate) async fn all<E: Readable + Send + 'static>(state: Result<Sharded<E>>) -> Result<Vec<E>> {
    let mut state = state?;
    let origin = state.positions();
    let read = state.read_up_to(None).await;
    read.map_err(|error| state.failed_whole(&origin, error))
}

/// The first item, if any.
pub(crate) async fn first<E: Readable + Send + 'static>(
    state: Result<Sharded<E>>,
) -> Result<Option<E>> {
    let mut state = state?;
    let origin = state.positions();
    let read = state.read_up_to(Some(1)).await;
    read.map(|items| items.into_iter().next())
        .map_err(|error| state.failed_whole(&origin, error))
}

fn page_target(count: Option<u32>) -> usize {
    count.map_or(usize::MAX, |c| usize::try_from(c).unwrap_or(usize::MAX))
}

/// A shard's next item in the merge. The heap pops its greatest element,
/// so the item delivered first compares greatest.
struct Head {
    sort: SortValue,
    shard: usize,
    ascending: bool,
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        let by_key = self.sort.cmp(&other.sort);
        let by_key = if self.ascending {
            by_key.reverse()
        } else {
            by_key
        };
        by_key.then_with(|| other.shard.cmp(&self.shard))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

/// A sort key value, ordered as DynamoDB orders it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SortValue {
    /// No sort key (an index without one): every item ties.
    Missing,
    S(String),
    N(String),
    B(Vec<u8>),
}

impl SortValue {
    fn of(value: Option<&AttributeValue>) -> Self {
        match value {
            Some(AttributeValue::S(s)) => SortValue::S(s.clone()),
            Some(AttributeValue::N(n)) => SortValue::N(n.clone()),
            Some(AttributeValue::B(b)) => SortValue::B(b.as_ref().to_vec()),
            _ => SortValue::Missing,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            SortValue::Missing => 0,
            SortValue::S(_) => 1,
            SortValue::N(_) => 2,
            SortValue::B(_) => 3,
        }
    }
}

impl Ord for SortValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            // `str` orders by its UTF-8 bytes, as DynamoDB does.
            (SortValue::S(a), SortValue::S(b)) => a.cmp(b),
            (SortValue::N(a), SortValue::N(b)) => compare_numbers(a, b),
            (SortValue::B(a), SortValue::B(b)) => a.cmp(b),
            // One attribute has one type in a key schema.
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for SortValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A decimal number as `±0.d₁d₂…dₙ × 10^point`, with no leading or trailing
/// zero digit (zero: no digits).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    point: i64,
}

impl Decimal {
    /// DynamoDB's number text: a sign, digits, a fraction, an exponent.
    fn parse(text: &str) -> Option<Self> {
        let (negative, unsigned) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
            None => (unsigned, 0),
        };
        let (int, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && fraction.is_empty()) || !all_digits(int) || !all_digits(fraction) {
            return None;
        }
        let mut digits: Vec<u8> = int.bytes().chain(fraction.bytes()).collect();
        let mut point = i64::try_from(int.len()).ok()?.checked_add(exponent)?;
        let leading = digits.iter().take_while(|&&d| d == b'0').count();
        digits.drain(..leading);
        point -= i64::try_from(leading).ok()?;
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        if digits.is_empty() {
            return Some(Decimal {
                negative: false,
                digits,
                point: 0,
            });
        }
        Some(Decimal {
            negative,
            digits,
            point,
        })
    }

    fn sign(&self) -> i8 {
        match (self.digits.is_empty(), self.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let by_sign = self.sign().cmp(&other.sign());
        if by_sign != Ordering::Equal || self.sign() == 0 {
            return by_sign;
        }
        let magnitude = (self.point, &self.digits).cmp(&(other.point, &other.digits));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Two numbers by value, exactly (no float rounding); text that is not a
/// number (never sent by DynamoDB) compares as text.
fn compare_numbers(a: &str, b: &str) -> Ordering {
    match (Decimal::parse(a), Decimal::parse(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_by_value() {
        let ordered = [
            "-1E+3",
            "-100",
            "-99.5",
            "-2",
            "-0.001",
            "0",
            "-0",
            "0.00",
            "1e-3",
            "0.5",
            "2",
            "10",
            "10.000001",
            "99999999999999999999999999999999999999",
            "1e39",
        ];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                let zero = |s: &str| Decimal::parse(s).is_some_and(|d| d.sign() == 0);
                let expected = if zero(a) && zero(b) {
                    Ordering::Equal
                } else {
                    i.cmp(&j)
                };
                assert_eq!(compare_numbers(a, b), expected, "{a} vs {b}");
            }
        }
        assert_eq!(compare_numbers("1.50", "1.5"), Ordering::Equal);
        assert_eq!(compare_numbers("0012", "12"), Ordering::Equal);
    }

    #[test]
    fn heads_pop_in_merge_order_with_ties_by_shard() {
        let head = |s: &str, shard, ascending| Head {
            sort: SortValue::S(s.into()),
            shard,
            ascending,
        };
        let mut heap =
            BinaryHeap::from([head("b", 0, true), head("a", 2, true), head("a", 1, true)]);
        let popped: Vec<usize> = std::iter::from_fn(|| heap.pop().map(|h| h.shard)).collect();
        assert_eq!(popped, [1, 2, 0]);
        let mut heap = BinaryHeap::from([head("a", 0, false), head("b", 1, false)]);
        assert_eq!(heap.pop().map(|h| h.shard), Some(1));
        // UTF-8 byte order: U+FFFF sorts before U+10000 (UTF-16 would not).
        assert!(SortValue::S("\u{FFFF}".into()) < SortValue::S("\u{10000}".into()));
    }
}
