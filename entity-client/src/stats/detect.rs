//! The detectors: each reads the merged window and says what it finds, with
//! the thresholds of [`Thresholds`].

use super::config::{StatsConfig, Thresholds};
use super::record::Operation;
use super::report::{Finding, KeyStats, OperationStats, Report, TOP_KEYS};
use super::window::{GroupCounters, Totals};
use std::collections::HashMap;

/// Filtered requests must have read at least this many items before their
/// waste is reported: a handful of items says nothing.
const MIN_FILTER_SCANNED: u64 = 100;

impl Report {
    /// What the window holds, and what the detectors make of it.
    pub(crate) fn new(totals: &Totals, config: &StatsConfig) -> Self {
        let operations = operations(totals);
        let keys = keys(totals);
        let findings = findings(totals, &operations, &keys, &config.thresholds);
        Self {
            window: config.window,
            observed: totals.span.min(config.window),
            operations,
            top_keys: keys.into_iter().take(TOP_KEYS).collect(),
            tracked_keys: totals.tracked_keys,
            dropped_keys: totals.dropped_keys,
            findings,
        }
    }
}

/// Totals per operation, table and index, busiest first.
pub(crate) fn operations(totals: &Totals) -> Vec<OperationStats> {
    let mut out: Vec<OperationStats> = (totals.groups.iter())
        .map(|(id, g)| OperationStats {
            operation: id.operation,
            table: id.table.clone(),
            index: id.index.clone(),
            requests: g.requests,
            read_units: g.read_units,
            write_units: g.write_units,
            returned: g.returned,
            scanned: g.scanned,
            throttles: g.throttles,
        })
        .collect();
    out.sort_by(|a, b| {
        (b.requests, &a.table, &a.index, a.operation).cmp(&(
            a.requests,
            &b.table,
            &b.index,
            b.operation,
        ))
    });
    out
}

/// Every tracked key with its share of its table's (or index's) traffic,
/// busiest first.
pub(crate) fn keys(totals: &Totals) -> Vec<KeyStats> {
    // Traffic per table or index, over every operation and every key
    // (dropped ones included).
    let mut places: HashMap<(&str, Option<&str>), (u64, f64)> = HashMap::new();
    for (id, g) in &totals.groups {
        let place = places.entry((&id.table, id.index.as_deref())).or_default();
        place.0 += g.key_hits;
        place.1 += g.key_units;
    }
    let mut out: Vec<KeyStats> = (totals.keys.iter())
        .map(|(id, k)| {
            let (hits, units) = places
                .get(&(id.table.as_str(), id.index.as_deref()))
                .copied()
                .unwrap_or_default();
            let own_units = k.counters.read_units + k.counters.write_units;
            let share = if units > 0.0 {
                own_units / units
            } else {
                k.counters.hits as f64 / hits.max(1) as f64
            };
            KeyStats {
                table: id.table.clone(),
                index: id.index.clone(),
                key: id.key.clone(),
                requests: k.counters.hits,
                read_units: k.counters.read_units,
                write_units: k.counters.write_units,
                share: share.min(1.0),
                peak_read_units_per_sec: k.peak_read_per_sec,
                peak_write_units_per_sec: k.peak_write_per_sec,
                throttles: k.counters.throttles,
                throttle_reasons: k.counters.reasons.clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let weight = |k: &KeyStats| (k.read_units + k.write_units, k.requests);
        weight(b)
            .partial_cmp(&weight(a))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.key.cmp(&b.key))
    });
    out
}

/// Every detector's findings, most urgent first.
pub(crate) fn findings(
    totals: &Totals,
    operations: &[OperationStats],
    keys: &[KeyStats],
    t: &Thresholds,
) -> Vec<Finding> {
    let mut out = Vec::new();
    hot_partitions(totals, keys, t, &mut out);
    throttled(totals, keys, &mut out);
    for op in operations {
        let id = super::window::GroupId {
            operation: op.operation,
            table: op.table.clone(),
            index: op.index.clone(),
        };
        let Some(group) = totals.groups.get(&id) else {
            continue;
        };
        scans(op, &mut out);
        filter_waste(op, group, &mut out);
        fan_out(op, group, t, &mut out);
        large_items(op, group, &mut out);
    }
    out
}

/// A key is hot when it carries a large share of its table's traffic **and**
/// its busiest slice nears the per-partition limit: a large share of little
/// traffic is harmless, and a high rate spread over many keys is what
/// DynamoDB scales for.
fn hot_partitions(totals: &Totals, keys: &[KeyStats], t: &Thresholds, out: &mut Vec<Finding>) {
    let mut requests: HashMap<(&str, Option<&str>), u64> = HashMap::new();
    for (id, g) in &totals.groups {
        *requests
            .entry((&id.table, id.index.as_deref()))
            .or_default() += g.requests;
    }
    for key in keys {
        let place_requests = requests
            .get(&(key.table.as_str(), key.index.as_deref()))
            .copied()
            .unwrap_or(0);
        let fast = key.peak_read_units_per_sec >= t.hot_fraction_of_limit * t.partition_read_units
            || key.peak_write_units_per_sec >= t.hot_fraction_of_limit * t.partition_write_units;
        if place_requests >= t.min_requests && key.share >= t.hot_share && fast {
            out.push(Finding::HotPartition {
                key: key.clone(),
                read_limit: t.partition_read_units,
                write_limit: t.partition_write_units,
            });
        }
    }
}

/// Throttled keys, and throttled scans (which have no key).
fn throttled(totals: &Totals, keys: &[KeyStats], out: &mut Vec<Finding>) {
    for key in keys.iter().filter(|k| k.throttles > 0) {
        let operation = (totals.groups.iter())
            .filter(|(id, g)| g.throttles > 0 && id.table == key.table && id.index == key.index)
            .map(|(id, _)| id.operation)
            .min();
        out.push(Finding::Throttled {
            operation,
            table: key.table.clone(),
            index: key.index.clone(),
            key: Some(key.key.clone()),
            throttles: key.throttles,
            reasons: key.throttle_reasons.clone(),
        });
    }
    let mut scans: Vec<_> = (totals.groups.iter())
        .filter(|(id, g)| id.operation == Operation::Scan && g.throttles > 0)
        .collect();
    scans.sort_by(|a, b| a.0.cmp(b.0));
    for (id, g) in scans {
        out.push(Finding::Throttled {
            operation: Some(Operation::Scan),
            table: id.table.clone(),
            index: id.index.clone(),
            key: None,
            throttles: g.throttles,
            reasons: g.reasons.clone(),
        });
    }
}

fn scans(op: &OperationStats, out: &mut Vec<Finding>) {
    if op.operation == Operation::Scan && op.requests > op.throttles {
        out.push(Finding::Scan { stats: op.clone() });
    }
}

fn filter_waste(op: &OperationStats, g: &GroupCounters, out: &mut Vec<Finding>) {
    let (scanned, returned) = (g.wasteful_scanned, g.wasteful_returned);
    if scanned >= MIN_FILTER_SCANNED {
        out.push(Finding::FilterWaste {
            stats: op.clone(),
            scanned,
            returned,
        });
    }
}

/// Queries only: a scan that reads everything is reported as a scan.
fn fan_out(op: &OperationStats, g: &GroupCounters, t: &Thresholds, out: &mut Vec<Finding>) {
    let calls = g.unlimited_calls;
    if op.operation == Operation::Query
        && calls > 0
        && g.unlimited_returned as f64 / calls as f64 >= t.fan_out_items
    {
        out.push(Finding::UnboundedFanOut {
            stats: op.clone(),
            calls,
            pages: g.unlimited_pages,
            items: g.unlimited_returned,
        });
    }
}

fn large_items(op: &OperationStats, g: &GroupCounters, out: &mut Vec<Finding>) {
    if g.large_items > 0 {
        out.push(Finding::LargeItem {
            operation: op.operation,
            table: op.table.clone(),
            count: g.large_items,
            largest_bytes: g.largest_item,
        });
    }
}
