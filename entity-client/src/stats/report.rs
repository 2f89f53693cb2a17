//! The report: per-operation totals, the busiest partition keys, and the
//! detectors' findings, each with a recommendation; `Display` renders it
//! for a log or a terminal.

use super::record::{KeyLabel, Operation};
use std::fmt;
use std::time::Duration;

/// Partition keys listed in [`Report::top_keys`].
pub(super) const TOP_KEYS: usize = 10;

/// What the window holds, and what the detectors make of it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    /// The window the report covers.
    pub window: Duration,
    /// How much of it has been observed (less than `window` while the
    /// recorder is young).
    pub observed: Duration,
    /// Totals per operation, table and index, busiest first.
    pub operations: Vec<OperationStats>,
    /// The busiest partition keys, by capacity, then by requests.
    pub top_keys: Vec<KeyStats>,
    /// Partition keys held by the window.
    pub tracked_keys: usize,
    /// Light keys dropped to keep memory bounded (their traffic still
    /// counts in the totals and shares).
    pub dropped_keys: u64,
    /// What the detectors found, most urgent first.
    pub findings: Vec<Finding>,
}

/// Totals of one operation on one table or index.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OperationStats {
    /// The operation.
    pub operation: Operation,
    /// The table.
    pub table: String,
    /// The index, if any.
    pub index: Option<String>,
    /// Attempts that reached the server, throttled ones included.
    pub requests: u64,
    /// Read capacity units consumed.
    pub read_units: f64,
    /// Write capacity units consumed.
    pub write_units: f64,
    /// Items returned.
    pub returned: u64,
    /// Items read (`ScannedCount`; equal to `returned` without a filter).
    pub scanned: u64,
    /// Throttled attempts.
    pub throttles: u64,
}

/// One partition key's traffic.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct KeyStats {
    /// The table.
    pub table: String,
    /// The index, if the key is an index's partition key.
    pub index: Option<String>,
    /// The key.
    pub key: KeyLabel,
    /// Requests (or batch items) that touched it.
    pub requests: u64,
    /// Read capacity units.
    pub read_units: f64,
    /// Write capacity units.
    pub write_units: f64,
    /// Its share of its table's (or index's) capacity, or of its requests
    /// when no capacity was reported; 0 to 1.
    pub share: f64,
    /// Read units per second in its busiest slice of the window.
    pub peak_read_units_per_sec: f64,
    /// Write units per second in its busiest slice of the window.
    pub peak_write_units_per_sec: f64,
    /// Throttled attempts.
    pub throttles: u64,
    /// Why they were throttled.
    pub throttle_reasons: Vec<String>,
}

/// Something the detectors found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Finding {
    /// A key carries a large share of its table's traffic at a rate near
    /// the per-partition limit.
    HotPartition {
        /// The key and its traffic.
        key: KeyStats,
        /// The per-partition read limit compared against (units/s).
        read_limit: f64,
        /// The per-partition write limit compared against (units/s).
        write_limit: f64,
    },
    /// Requests were throttled: on a key, or on a scan (`key` is `None`).
    Throttled {
        /// The operation (for a key, the first one throttled).
        operation: Option<Operation>,
        /// The table.
        table: String,
        /// The index, if any.
        index: Option<String>,
        /// The key, if the requests had one.
        key: Option<KeyLabel>,
        /// Throttled attempts.
        throttles: u64,
        /// The server's reasons, or the error names.
        reasons: Vec<String>,
    },
    /// Scans read the whole table or index.
    Scan {
        /// Totals of the scans.
        stats: OperationStats,
    },
    /// Filters threw away most of what was read (and paid for).
    FilterWaste {
        /// Totals of the operation.
        stats: OperationStats,
        /// Items read by the wasteful requests (those that read at least
        /// `filter_waste_ratio` items per item returned).
        scanned: u64,
        /// Items they returned.
        returned: u64,
    },
    /// Queries without a `Limit` read many pages per call.
    UnboundedFanOut {
        /// Totals of the operation.
        stats: OperationStats,
        /// Calls (first pages) without a `Limit`.
        calls: u64,
        /// Pages they read.
        pages: u64,
        /// Items they returned.
        items: u64,
    },
    /// Items near DynamoDB's 400 KB limit were written or read.
    LargeItem {
        /// The operation.
        operation: Operation,
        /// The table.
        table: String,
        /// Requests with such an item.
        count: u64,
        /// The largest item seen, in bytes.
        largest_bytes: usize,
    },
}

impl Finding {
    /// A short name for the kind of finding.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::HotPartition { .. } => "hot partition",
            Self::Throttled { .. } => "throttled",
            Self::Scan { .. } => "scan",
            Self::FilterWaste { .. } => "filter waste",
            Self::UnboundedFanOut { .. } => "unbounded fan-out",
            Self::LargeItem { .. } => "large item",
        }
    }

    /// What to do about it.
    pub fn recommendation(&self) -> &'static str {
        match self {
            Self::HotPartition { .. } => {
                "spread the key: shard it (a suffix from a field, or random for write-only \
                 streams), move the traffic to a higher-cardinality key, or cache hot reads"
            }
            Self::Throttled { key: Some(_), .. } => {
                "the partition or table ran out of capacity: shard the key, raise provisioned \
                 capacity (or use on-demand), and keep retries jittered"
            }
            Self::Throttled { key: None, .. } => {
                "scans consume the table's capacity: rate-limit them, scan in parallel \
                 segments off-peak, or replace them with queries"
            }
            Self::Scan { .. } => {
                "add a key or a secondary index for this access pattern and query it; keep \
                 scans for migrations and exports"
            }
            Self::FilterWaste { .. } => {
                "filters run after the read is paid for: move the filtered attribute into the \
                 sort key or a sparse index so the key condition selects the items"
            }
            Self::UnboundedFanOut { .. } => {
                "read a page at a time (`.page_size(n)` and the page's cursor) or narrow the \
                 key condition, instead of reading every page in one call"
            }
            Self::LargeItem { .. } => {
                "split the item (a header item plus parts under the same partition), or keep \
                 the payload in S3 and store its address"
            }
        }
    }
}

fn place(table: &str, index: &Option<String>) -> String {
    match index {
        Some(index) => format!("index `{index}` of `{table}`"),
        None => format!("table `{table}`"),
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] ", self.kind())?;
        match self {
            Self::HotPartition {
                key,
                read_limit,
                write_limit,
            } => write!(
                f,
                "key `{}` on {} takes {:.0}% of the traffic, peaking at {:.0} RCU/s \
                 ({:.0}% of {read_limit:.0}) and {:.0} WCU/s ({:.0}% of {write_limit:.0})",
                key.key,
                place(&key.table, &key.index),
                key.share * 100.0,
                key.peak_read_units_per_sec,
                100.0 * key.peak_read_units_per_sec / read_limit,
                key.peak_write_units_per_sec,
                100.0 * key.peak_write_units_per_sec / write_limit,
            )?,
            Self::Throttled {
                operation,
                table,
                index,
                key,
                throttles,
                reasons,
            } => {
                match key {
                    Some(key) => write!(f, "key `{key}` on {}", place(table, index))?,
                    None => write!(f, "{}", place(table, index))?,
                }
                if let Some(operation) = operation {
                    write!(f, " ({operation})")?;
                }
                write!(
                    f,
                    ": {throttles} throttled attempts ({})",
                    reasons.join(", ")
                )?;
            }
            Self::Scan { stats } => write!(
                f,
                "{} scans of {} read {} items for {:.1} RCU",
                stats.requests,
                place(&stats.table, &stats.index),
                stats.scanned,
                stats.read_units
            )?,
            Self::FilterWaste {
                stats,
                scanned,
                returned,
            } => write!(
                f,
                "{} on {} read {scanned} items to return {returned} ({:.0} read per item kept)",
                stats.operation,
                place(&stats.table, &stats.index),
                *scanned as f64 / (*returned).max(1) as f64
            )?,
            Self::UnboundedFanOut {
                stats,
                calls,
                pages,
                items,
            } => write!(
                f,
                "{} on {} without a limit: {calls} calls read {pages} pages, {:.0} items per call",
                stats.operation,
                place(&stats.table, &stats.index),
                *items as f64 / (*calls).max(1) as f64
            )?,
            Self::LargeItem {
                operation,
                table,
                count,
                largest_bytes,
            } => write!(
                f,
                "{count} {operation} requests on table `{table}` carried items up to {:.0} KB \
                 (limit 400 KB)",
                *largest_bytes as f64 / 1024.0
            )?,
        }
        write!(f, "\n      -> {}", self.recommendation())
    }
}

impl Report {
    /// The findings of one kind ([`Finding::kind`]).
    pub fn findings_of(&self, kind: &str) -> impl Iterator<Item = &Finding> {
        let kind = kind.to_owned();
        self.findings.iter().filter(move |f| f.kind() == kind)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Request statistics, last {:.0?} of a {:.0?} window ({} partition keys tracked, {} dropped)",
            self.observed, self.window, self.tracked_keys, self.dropped_keys
        )?;
        writeln!(
            f,
            "  {:<18} {:<24} {:>8} {:>10} {:>10} {:>9} {:>9} {:>9}",
            "operation",
            "table/index",
            "requests",
            "RCU",
            "WCU",
            "returned",
            "scanned",
            "throttled"
        )?;
        for op in &self.operations {
            let target = match &op.index {
                Some(index) => format!("{}/{index}", op.table),
                None => op.table.clone(),
            };
            writeln!(
                f,
                "  {:<18} {:<24} {:>8} {:>10.1} {:>10.1} {:>9} {:>9} {:>9}",
                op.operation.name(),
                target,
                op.requests,
                op.read_units,
                op.write_units,
                op.returned,
                op.scanned,
                op.throttles
            )?;
        }
        writeln!(f, "Busiest partition keys")?;
        for key in &self.top_keys {
            writeln!(
                f,
                "  {:<32} {:>5.1}% {:>7} req  peak {:>8.1} RCU/s {:>8.1} WCU/s{}",
                format!("{} {}", key.table, key.key),
                key.share * 100.0,
                key.requests,
                key.peak_read_units_per_sec,
                key.peak_write_units_per_sec,
                if key.throttles > 0 {
                    format!("  {} throttled", key.throttles)
                } else {
                    String::new()
                }
            )?;
        }
        if self.findings.is_empty() {
            return writeln!(f, "No findings.");
        }
        writeln!(f, "Findings ({})", self.findings.len())?;
        for (n, finding) in self.findings.iter().enumerate() {
            writeln!(f, "  {}. {finding}", n + 1)?;
        }
        Ok(())
    }
}
