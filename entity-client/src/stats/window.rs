//! The sliding window: a ring of fixed-width slices, each holding counters
//! per operation, table and index and a capped map of partition keys. As
//! time moves on, the oldest slice is cleared whole and reused, so memory
//! never grows with time, and a key's peak rate is its busiest slice.
//!
//! Partition keys are kept in a capped map per slice rather than a
//! count-min sketch: the report needs the keys themselves (a sketch only
//! answers for keys you already know), and a hot key is by definition among
//! the heaviest. When a slice's map reaches `max_keys`, the lighter half is
//! dropped in one pass (amortised O(log n) per new key, unlike Space-Saving's
//! scan for the minimum on every new key once full); the dropped keys'
//! traffic still counts in the table totals, so shares stay honest. A key
//! heavier than the median of a full map is never dropped, so one carrying
//! more than about 2/`max_keys` of a slice's traffic stays.

use super::config::Thresholds;
use super::record::{KeyLabel, Operation, Outcome, RequestFacts};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Throttle reasons kept per key or group.
const MAX_REASONS: usize = 4;

/// Counters of one operation on one table or index.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupCounters {
    /// Attempts that reached the server, throttled ones included.
    pub(crate) requests: u64,
    pub(crate) read_units: f64,
    pub(crate) write_units: f64,
    pub(crate) returned: u64,
    pub(crate) scanned: u64,
    /// Filtered requests that read at least `filter_waste_ratio` items per
    /// item returned, and their counts. Judged per request: the client
    /// filters every read (expired and deleted items), so the filtered
    /// totals would hide a wasteful query among selective ones.
    pub(crate) wasteful_requests: u64,
    pub(crate) wasteful_returned: u64,
    pub(crate) wasteful_scanned: u64,
    /// Requests without `Limit`: first pages, all pages, items returned.
    pub(crate) unlimited_calls: u64,
    pub(crate) unlimited_pages: u64,
    pub(crate) unlimited_returned: u64,
    pub(crate) throttles: u64,
    pub(crate) reasons: Vec<String>,
    pub(crate) large_items: u64,
    pub(crate) largest_item: usize,
    /// Key hits and key capacity, of tracked and dropped keys alike.
    pub(crate) key_hits: u64,
    pub(crate) key_units: f64,
}

/// Counters of one partition key on one table or index.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyCounters {
    pub(crate) hits: u64,
    pub(crate) read_units: f64,
    pub(crate) write_units: f64,
    pub(crate) throttles: u64,
    pub(crate) reasons: Vec<String>,
}

impl KeyCounters {
    /// What keeps a key when a slice is pruned: traffic, capacity, and
    /// throttles above all.
    fn weight(&self) -> f64 {
        self.hits as f64 + self.read_units + self.write_units + 100.0 * self.throttles as f64
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct GroupId {
    pub(crate) operation: Operation,
    pub(crate) table: String,
    pub(crate) index: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct KeyId {
    pub(crate) table: String,
    pub(crate) index: Option<String>,
    pub(crate) key: KeyLabel,
}

#[derive(Debug, Default)]
struct Slice {
    /// Which slice since the recorder started; `u64::MAX` when unused.
    epoch: u64,
    groups: HashMap<GroupId, GroupCounters>,
    keys: HashMap<KeyId, KeyCounters>,
    dropped_keys: u64,
}

/// One key's totals over the window, and its busiest slice.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTotals {
    pub(crate) counters: KeyCounters,
    pub(crate) peak_read_per_sec: f64,
    pub(crate) peak_write_per_sec: f64,
}

/// The window's slices merged.
#[derive(Debug, Default)]
pub(crate) struct Totals {
    pub(crate) groups: HashMap<GroupId, GroupCounters>,
    pub(crate) keys: HashMap<KeyId, KeyTotals>,
    pub(crate) tracked_keys: usize,
    pub(crate) dropped_keys: u64,
    /// How much of the window has been observed.
    pub(crate) span: Duration,
}

#[derive(Debug)]
pub(crate) struct Window {
    start: Instant,
    width: Duration,
    max_keys: usize,
    large_item_bytes: usize,
    filter_waste_ratio: f64,
    slices: Vec<Slice>,
}

impl Window {
    pub(crate) fn new(
        start: Instant,
        width: Duration,
        slices: usize,
        max_keys: usize,
        thresholds: &Thresholds,
    ) -> Self {
        let slices = (0..slices.max(1))
            .map(|_| Slice {
                epoch: u64::MAX,
                ..Slice::default()
            })
            .collect();
        Self {
            start,
            width,
            max_keys,
            large_item_bytes: thresholds.large_item_bytes,
            filter_waste_ratio: thresholds.filter_waste_ratio,
            slices,
        }
    }

    fn epoch(&self, at: Instant) -> u64 {
        (at.saturating_duration_since(self.start).as_nanos() / self.width.as_nanos()) as u64
    }

    /// The slice for `at`, cleared if it last held an older epoch.
    fn slice(&mut self, at: Instant) -> &mut Slice {
        let epoch = self.epoch(at);
        let n = self.slices.len() as u64;
        let slice = &mut self.slices[(epoch % n) as usize];
        if slice.epoch != epoch {
            slice.epoch = epoch;
            slice.groups.clear();
            slice.keys.clear();
            slice.dropped_keys = 0;
        }
        slice
    }

    /// Records a successful attempt.
    pub(crate) fn record(&mut self, facts: &RequestFacts, outcome: &Outcome, at: Instant) {
        let (large, waste_ratio) = (self.large_item_bytes, self.filter_waste_ratio);
        let largest = facts.largest_item.max(outcome.largest_item);
        let slice = self.slice(at);
        let group = slice.groups.entry(group_id(facts)).or_default();
        group.requests += 1;
        group.read_units += outcome.read_units;
        group.write_units += outcome.write_units;
        group.returned += outcome.returned;
        group.scanned += outcome.scanned;
        let ratio = outcome.scanned as f64 / outcome.returned.max(1) as f64;
        if facts.filtered && outcome.scanned > outcome.returned && ratio >= waste_ratio {
            group.wasteful_requests += 1;
            group.wasteful_returned += outcome.returned;
            group.wasteful_scanned += outcome.scanned;
        }
        if !facts.limited && matches!(facts.operation, Operation::Query | Operation::Scan) {
            group.unlimited_calls += u64::from(!facts.continuation);
            group.unlimited_pages += 1;
            group.unlimited_returned += outcome.returned;
        }
        if largest >= large {
            group.large_items += 1;
        }
        group.largest_item = group.largest_item.max(largest);
        let share = 1.0 / facts.keys.len().max(1) as f64;
        let (read, write) = (outcome.read_units * share, outcome.write_units * share);
        group.key_hits += facts.keys.len() as u64;
        group.key_units += outcome.read_units + outcome.write_units;
        self.touch_keys(facts, at, |key| {
            key.hits += 1;
            key.read_units += read;
            key.write_units += write;
        });
    }

    /// Records a throttled attempt.
    pub(crate) fn record_throttle(
        &mut self,
        facts: &RequestFacts,
        reasons: &[String],
        at: Instant,
    ) {
        let slice = self.slice(at);
        let group = slice.groups.entry(group_id(facts)).or_default();
        group.requests += 1;
        group.throttles += 1;
        group.key_hits += facts.keys.len() as u64;
        for reason in reasons {
            add_reason(&mut group.reasons, reason);
        }
        self.touch_keys(facts, at, |key| {
            key.hits += 1;
            key.throttles += 1;
            for reason in reasons {
                add_reason(&mut key.reasons, reason);
            }
        });
    }

    fn touch_keys(
        &mut self,
        facts: &RequestFacts,
        at: Instant,
        mut change: impl FnMut(&mut KeyCounters),
    ) {
        let max_keys = self.max_keys;
        let slice = self.slice(at);
        for key in &facts.keys {
            let id = KeyId {
                table: facts.table.clone(),
                index: facts.index.clone(),
                key: key.clone(),
            };
            if !slice.keys.contains_key(&id) && slice.keys.len() >= max_keys {
                prune(slice, max_keys / 2);
            }
            change(slice.keys.entry(id).or_default());
        }
    }

    /// The live slices merged, as of `now`.
    pub(crate) fn totals(&self, now: Instant) -> Totals {
        let current = self.epoch(now);
        let oldest = current.saturating_sub(self.slices.len() as u64 - 1);
        let mut totals = Totals::default();
        let live = self.slices.iter().filter(|s| s.epoch != u64::MAX);
        for slice in live.filter(|s| (oldest..=current).contains(&s.epoch)) {
            let seconds = self.observed(slice.epoch, current, now).as_secs_f64();
            for (id, counters) in &slice.groups {
                merge_group(totals.groups.entry(id.clone()).or_default(), counters);
            }
            for (id, counters) in &slice.keys {
                let merged = totals.keys.entry(id.clone()).or_default();
                merge_key(&mut merged.counters, counters);
                merged.peak_read_per_sec =
                    merged.peak_read_per_sec.max(counters.read_units / seconds);
                merged.peak_write_per_sec = merged
                    .peak_write_per_sec
                    .max(counters.write_units / seconds);
            }
            totals.tracked_keys += slice.keys.len();
            totals.dropped_keys += slice.dropped_keys;
        }
        totals.span = now.saturating_duration_since(self.slice_start(oldest));
        totals
    }

    /// How long slice `epoch` has been observed: its whole width, or for
    /// the current one the time since it began (at least a second, so that
    /// a burst in its first milliseconds is not read as a huge rate).
    fn observed(&self, epoch: u64, current: u64, now: Instant) -> Duration {
        if epoch != current {
            return self.width;
        }
        let began = self.slice_start(epoch);
        let floor = Duration::from_secs(1).min(self.width);
        now.saturating_duration_since(began)
            .clamp(floor, self.width)
    }

    fn slice_start(&self, epoch: u64) -> Instant {
        self.start
            + self
                .width
                .saturating_mul(u32::try_from(epoch).unwrap_or(u32::MAX))
    }

    /// Partition keys held, over every slice (live or not yet reused).
    pub(crate) fn tracked_keys(&self) -> usize {
        self.slices.iter().map(|s| s.keys.len()).sum()
    }

    /// Forgets everything.
    pub(crate) fn clear(&mut self) {
        for slice in &mut self.slices {
            *slice = Slice {
                epoch: u64::MAX,
                ..Slice::default()
            };
        }
    }
}

fn group_id(facts: &RequestFacts) -> GroupId {
    GroupId {
        operation: facts.operation,
        table: facts.table.clone(),
        index: facts.index.clone(),
    }
}

/// Keeps the `keep` heaviest keys of a slice.
fn prune(slice: &mut Slice, keep: usize) {
    let mut weights: Vec<f64> = slice.keys.values().map(KeyCounters::weight).collect();
    let cut = weights.len().saturating_sub(keep);
    if cut == 0 {
        return;
    }
    weights.select_nth_unstable_by(cut - 1, f64::total_cmp);
    let threshold = weights[cut - 1];
    let before = slice.keys.len();
    // Keys tied at the threshold go too: with all keys equally light (many
    // keys seen once) the slice empties, which is the point.
    slice.keys.retain(|_, k| k.weight() > threshold);
    slice.dropped_keys += (before - slice.keys.len()) as u64;
}

fn add_reason(reasons: &mut Vec<String>, reason: &str) {
    if reasons.len() < MAX_REASONS && !reasons.iter().any(|r| r == reason) {
        reasons.push(reason.to_owned());
    }
}

fn merge_group(into: &mut GroupCounters, from: &GroupCounters) {
    into.requests += from.requests;
    into.read_units += from.read_units;
    into.write_units += from.write_units;
    into.returned += from.returned;
    into.scanned += from.scanned;
    into.wasteful_requests += from.wasteful_requests;
    into.wasteful_returned += from.wasteful_returned;
    into.wasteful_scanned += from.wasteful_scanned;
    into.unlimited_calls += from.unlimited_calls;
    into.unlimited_pages += from.unlimited_pages;
    into.unlimited_returned += from.unlimited_returned;
    into.throttles += from.throttles;
    into.large_items += from.large_items;
    into.largest_item = into.largest_item.max(from.largest_item);
    into.key_hits += from.key_hits;
    into.key_units += from.key_units;
    for reason in &from.reasons {
        add_reason(&mut into.reasons, reason);
    }
}

fn merge_key(into: &mut KeyCounters, from: &KeyCounters) {
    into.hits += from.hits;
    into.read_units += from.read_units;
    into.write_units += from.write_units;
    into.throttles += from.throttles;
    for reason in &from.reasons {
        add_reason(&mut into.reasons, reason);
    }
}
