//! What an access pattern cost ([`Client::measure`](crate::Client::measure)).

use super::report::{OperationStats, Report};
use std::fmt;
use std::time::Duration;

/// The window of a measure: wider than any test runs.
pub(super) const MEASURED: Duration = Duration::from_secs(365 * 24 * 3600);

/// What the requests of a measured run cost, as DynamoDB reported them
/// (`ReturnConsumedCapacity: TOTAL`, asked for on every request).
///
/// ```
/// let cost = entity_client::stats::Cost::default();
/// assert_eq!((cost.requests, cost.read_units, cost.write_units), (0, 0.0, 0.0));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Cost {
    /// Attempts that reached the server, retries and throttled ones
    /// included.
    pub requests: u64,
    /// Read capacity units consumed.
    pub read_units: f64,
    /// Write capacity units consumed (a transactional write costs twice a
    /// plain one).
    pub write_units: f64,
    /// Items returned by reads.
    pub returned: u64,
    /// Items read to return them (`ScannedCount`: more than `returned`
    /// when a filter drops items).
    pub scanned: u64,
    /// Throttled attempts.
    pub throttles: u64,
    /// The same, per operation, table and index, busiest first.
    pub operations: Vec<OperationStats>,
}

impl Cost {
    /// The totals of `report` (none when nothing was recorded).
    pub(super) fn of(report: Option<Report>) -> Self {
        let operations = report.map(|r| r.operations).unwrap_or_default();
        let mut cost = Cost::default();
        for op in &operations {
            cost.requests += op.requests;
            cost.read_units += op.read_units;
            cost.write_units += op.write_units;
            cost.returned += op.returned;
            cost.scanned += op.scanned;
            cost.throttles += op.throttles;
        }
        cost.operations = operations;
        cost
    }

    /// Requests of one operation (`"GetItem"`, `"Query"`, ...).
    pub fn requests_of(&self, operation: &str) -> u64 {
        self.operations
            .iter()
            .filter(|op| op.operation.name() == operation)
            .map(|op| op.requests)
            .sum()
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} requests, {} RCU, {} WCU, {} items returned of {} read",
            self.requests, self.read_units, self.write_units, self.returned, self.scanned
        )?;
        if self.throttles > 0 {
            write!(f, ", {} throttled", self.throttles)?;
        }
        for op in &self.operations {
            let index = op
                .index
                .as_deref()
                .map(|i| format!(" ({i})"))
                .unwrap_or_default();
            write!(
                f,
                "\n  {} {}{index}: {} requests, {} RCU, {} WCU",
                op.operation.name(),
                op.table,
                op.requests,
                op.read_units,
                op.write_units
            )?;
        }
        Ok(())
    }
}
