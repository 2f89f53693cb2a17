//! What the statistics recorder keeps and when its detectors fire.

use std::time::Duration;

/// How partition keys appear in the statistics and the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyMode {
    /// The key value itself (`USER#123`): readable, but the report then
    /// holds user data.
    #[default]
    Raw,
    /// A 64-bit SipHash of the value under a random key of this recorder,
    /// shown as 16 hex digits: stable while the client lives, not
    /// reversible without the recorder's key.
    Hashed,
}

/// When the detectors fire. The defaults follow DynamoDB's documented
/// limits: a partition serves at most 3,000 read and 1,000 write capacity
/// units per second, and an item is at most 400 KB.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// A key is hot only if it carries at least this share of its table's
    /// (or index's) requests or capacity in the window...
    pub hot_share: f64,
    /// ...and its peak per-second rate reaches this fraction of the
    /// per-partition limit.
    pub hot_fraction_of_limit: f64,
    /// Read capacity units per second one partition serves.
    pub partition_read_units: f64,
    /// Write capacity units per second one partition serves.
    pub partition_write_units: f64,
    /// Fewer requests than this on a table or index in the window tell
    /// nothing about shares: no hot-partition finding.
    pub min_requests: u64,
    /// Filter waste: items scanned per item returned by filtered queries
    /// and scans at or above this.
    pub filter_waste_ratio: f64,
    /// Unbounded fan-out: items read per call (first page plus the pages
    /// that follow it) without a `Limit`, at or above this.
    pub fan_out_items: f64,
    /// An item this large or larger is reported (the limit is 400 KB).
    pub large_item_bytes: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            hot_share: 0.25,
            hot_fraction_of_limit: 0.5,
            partition_read_units: 3000.0,
            partition_write_units: 1000.0,
            min_requests: 20,
            filter_waste_ratio: 10.0,
            fan_out_items: 1000.0,
            large_item_bytes: 300 * 1024,
        }
    }
}

/// How a client records request statistics ([`Client::with_stats`]).
///
/// Memory is bounded by `buckets * max_keys` tracked partition keys (plus
/// one counter set per operation, table and index in each bucket), whatever
/// the traffic.
///
/// [`Client::with_stats`]: crate::Client::with_stats
#[derive(Debug, Clone, PartialEq)]
pub struct StatsConfig {
    /// How far back the report looks.
    pub window: Duration,
    /// How many slices the window is cut into; the oldest slice is dropped
    /// whole as time moves on, and a key's peak rate is measured per slice.
    pub buckets: usize,
    /// Partition keys tracked per slice; past it the lighter half is
    /// dropped.
    pub max_keys: usize,
    /// Raw or hashed partition keys.
    pub key_mode: KeyMode,
    /// The table's partition key attribute, to find the partition in the
    /// `Key` of item operations (`pk` unless the entities rename it).
    pub partition_key_attribute: String,
    /// When the detectors fire.
    pub thresholds: Thresholds,
}

impl Default for StatsConfig {
    fn default() -> Self {
        Self {
            window: Duration::from_secs(60),
            buckets: 12,
            max_keys: 1024,
            key_mode: KeyMode::Raw,
            partition_key_attribute: "pk".to_owned(),
            thresholds: Thresholds::default(),
        }
    }
}

impl StatsConfig {
    /// Sets the window and the number of slices it is cut into.
    pub fn window(mut self, window: Duration, buckets: usize) -> Self {
        self.window = window;
        self.buckets = buckets.max(1);
        self
    }

    /// Sets the number of partition keys tracked per slice.
    pub fn max_keys(mut self, max_keys: usize) -> Self {
        self.max_keys = max_keys.max(2);
        self
    }

    /// Records partition keys raw or hashed.
    pub fn key_mode(mut self, mode: KeyMode) -> Self {
        self.key_mode = mode;
        self
    }

    /// Names the table's partition key attribute.
    pub fn partition_key_attribute(mut self, attribute: impl Into<String>) -> Self {
        self.partition_key_attribute = attribute.into();
        self
    }

    /// Sets the per-partition limits the hot-partition detector compares
    /// against (read and write capacity units per second).
    pub fn partition_limits(mut self, read_units: f64, write_units: f64) -> Self {
        self.thresholds.partition_read_units = read_units;
        self.thresholds.partition_write_units = write_units;
        self
    }

    /// Sets every threshold.
    pub fn thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self
    }

    /// The width of one slice of the window.
    pub(crate) fn bucket_width(&self) -> Duration {
        (self.window / self.buckets.max(1) as u32).max(Duration::from_millis(1))
    }
}
