//! Capacity rate limits ([`RateLimit`]): bulk work (scans, batch writes,
//! migrations and their backfills) held to a budget of read and write
//! capacity units per second, so it leaves the table's throughput to the
//! live traffic beside it.
//!
//! The budget is charged with what DynamoDB reports each request consumed
//! (`ReturnConsumedCapacity`, asked for on every request of a limited
//! client), by an SDK interceptor (`interceptor`) that also sees every
//! throttled attempt, the SDK's own retries included; an estimate from the
//! request's item sizes is charged when it is sent and reconciled with the
//! report when the answer comes. The operations that send many requests
//! wait for the budget before each one ([`RateLimit::ready`]).

mod bucket;
pub(crate) mod estimate;
pub(crate) mod interceptor;

use bucket::{Adaptation, Bucket};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::time::Instant;

/// A budget of capacity units per second for bulk work: scans (every
/// parallel segment drawing on one budget), batch writes, migrations and
/// their unique backfills.
///
/// Set it on a client ([`Client::with_rate_limit`](crate::Client::with_rate_limit):
/// every request that client and its clones send is charged, and its bulk
/// operations wait for the budget) or on one operation
/// ([`Scan::rate_limit`](crate::Scan::rate_limit),
/// [`BatchWrite::rate_limit`](crate::BatchWrite::rate_limit),
/// [`Migrate::rate_limit`](crate::Migrate::rate_limit),
/// [`TenantBatchWrite::rate_limit`](crate::TenantBatchWrite::rate_limit)),
/// which takes the place of the client's for that operation.
///
/// The budget is charged with the consumed capacity DynamoDB reports for
/// each request (an estimate from item sizes while the request is out):
/// a request waits while the budget is in debt, so over a run the rate
/// holds to the budget whatever each request turns out to cost. A clone
/// shares the budget: operations that run at once under one `RateLimit`
/// share it too.
///
/// ```
/// # #[cfg(not(feature = "embedded"))] fn main() {}
/// # #[cfg(feature = "embedded")]
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use entity_client::{Entity, RateLimit};
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(schema = "app")]
/// #[pk(id)]
/// struct Doc { id: u32, body: String }
///
/// let server = entity_client::EmbeddedDynamo::start().await?;
/// let client = server.client("app");
/// client.create_table(&[Doc::MODEL]).await?;
///
/// // A backfill at no more than 500 write units a second.
/// let docs = (0..50).map(|id| Doc { id, body: "x".repeat(100) });
/// let limit = RateLimit::fixed(f64::INFINITY, 500.0);
/// let out = client.batch_write().put_iter(docs).rate_limit(limit.clone()).await?;
/// assert!(out.is_complete());
/// assert_eq!(limit.consumed().write_units, 50.0); // as DynamoDB reported it
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct RateLimit {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    read: Mutex<Bucket>,
    write: Mutex<Bucket>,
}

/// Capacity units per second, of reads and of writes.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Rates {
    /// Read capacity units (per second, or in all for
    /// [`RateLimit::consumed`]).
    pub read_units: f64,
    /// Write capacity units (per second, or in all).
    pub write_units: f64,
}

/// Which budget a request draws on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Read,
    Write,
}

/// The lowest rate of an adaptive budget unless set, as a fraction of its
/// ceiling.
const DEFAULT_FLOOR: f64 = 0.1;

/// The quiet period of an adaptive budget unless set.
const DEFAULT_QUIET: Duration = Duration::from_secs(1);

impl RateLimit {
    /// At most `read_units` read and `write_units` write capacity units per
    /// second (`f64::INFINITY`: no limit on that kind).
    ///
    /// ```
    /// let reads_only = entity_client::RateLimit::fixed(200.0, f64::INFINITY);
    /// assert_eq!(reads_only.rates().read_units, 200.0);
    /// ```
    pub fn fixed(read_units: f64, write_units: f64) -> Self {
        Self::new(read_units, write_units, None)
    }

    /// At most `read_units` and `write_units` per second, less while
    /// DynamoDB throttles: each throttle (one per burst of them) halves
    /// the kind's rate, down to a floor (a tenth of the ceiling unless
    /// [`floor`](Self::floor) says otherwise), and each quiet period
    /// without a throttle (one second unless [`quiet_period`](Self::quiet_period)
    /// says otherwise) gives a tenth of the ceiling back. Throttles count
    /// wherever they happen: the SDK's retries of a throttled request, and
    /// a batch's unprocessed items.
    ///
    /// ```
    /// use std::time::Duration;
    /// let limit = entity_client::RateLimit::adaptive(1000.0, 1000.0)
    ///     .floor(0.05)
    ///     .quiet_period(Duration::from_millis(500));
    /// assert_eq!(limit.rates().write_units, 1000.0); // until a throttle
    /// ```
    pub fn adaptive(read_units: f64, write_units: f64) -> Self {
        let adaptation = Adaptation {
            floor: DEFAULT_FLOOR,
            quiet: DEFAULT_QUIET,
        };
        Self::new(read_units, write_units, Some(adaptation))
    }

    /// No limit: as an operation's limit, runs it unlimited on a limited
    /// client.
    pub fn unlimited() -> Self {
        Self::fixed(f64::INFINITY, f64::INFINITY)
    }

    fn new(read_units: f64, write_units: f64, adaptation: Option<Adaptation>) -> Self {
        let now = Instant::now();
        Self {
            shared: Arc::new(Shared {
                read: Mutex::new(Bucket::new(read_units, adaptation, now)),
                write: Mutex::new(Bucket::new(write_units, adaptation, now)),
            }),
        }
    }

    /// The same limit with another adaptation (a new budget: set it before
    /// cloning the limit).
    fn adapted(self, change: impl Fn(&mut Adaptation)) -> Self {
        let (read, write) = (self.bucket(Kind::Read), self.bucket(Kind::Write));
        let (ceilings, adaptation) = ((read.ceiling(), write.ceiling()), read.adaptation());
        drop((read, write));
        match adaptation {
            Some(mut adaptation) => {
                change(&mut adaptation);
                Self::new(ceilings.0, ceilings.1, Some(adaptation))
            }
            None => self,
        }
    }

    /// The lowest rate of an adaptive limit, as a fraction of its ceiling
    /// (clamped to 0.01..=1). No effect on a fixed limit.
    pub fn floor(self, fraction: f64) -> Self {
        self.adapted(|a| a.floor = fraction.clamp(0.01, 1.0))
    }

    /// How long an adaptive limit goes without a throttle before each step
    /// up. No effect on a fixed limit.
    pub fn quiet_period(self, period: Duration) -> Self {
        self.adapted(|a| a.quiet = period)
    }

    /// The rates allowed now (an adaptive limit's move with throttles).
    pub fn rates(&self) -> Rates {
        Rates {
            read_units: self.bucket(Kind::Read).rate(),
            write_units: self.bucket(Kind::Write).rate(),
        }
    }

    /// The capacity DynamoDB reported consumed by the requests charged to
    /// this limit, in all.
    pub fn consumed(&self) -> Rates {
        Rates {
            read_units: self.bucket(Kind::Read).consumed,
            write_units: self.bucket(Kind::Write).consumed,
        }
    }

    /// Throttled attempts seen by requests charged to this limit.
    pub fn throttles(&self) -> u64 {
        self.bucket(Kind::Read).throttles + self.bucket(Kind::Write).throttles
    }

    fn bucket(&self, kind: Kind) -> MutexGuard<'_, Bucket> {
        let bucket = match kind {
            Kind::Read => &self.shared.read,
            Kind::Write => &self.shared.write,
        };
        bucket.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the budget of `kind` is out of debt, and lets one
    /// request of it through ([`Bucket::pass`]).
    pub(crate) async fn ready(&self, kind: Kind) {
        loop {
            let wait = self.bucket(kind).pass(Instant::now());
            match wait {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return,
            }
        }
    }

    /// Waits until the budget of `kind` is out of debt (for requests of
    /// another kind that come with ones of this kind: a migration's page
    /// and its rewrites).
    pub(crate) async fn paid_up(&self, kind: Kind) {
        loop {
            let wait = self.bucket(kind).wait(Instant::now());
            match wait {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return,
            }
        }
    }

    /// Charges a request's estimate when it is sent.
    pub(crate) fn charge(&self, kind: Kind, units: f64) {
        self.bucket(kind).charge_estimate(units, Instant::now());
    }

    /// Reconciles `estimate`, charged to `kind`, with what DynamoDB
    /// reported consumed.
    pub(crate) fn settle(&self, kind: Kind, estimate: f64, reported: Rates) {
        let now = Instant::now();
        for (each, units) in [
            (Kind::Read, reported.read_units),
            (Kind::Write, reported.write_units),
        ] {
            if each != kind && units == 0.0 {
                continue;
            }
            let given = if each == kind { estimate } else { 0.0 };
            let mut bucket = self.bucket(each);
            bucket.charge(units - given, now);
            bucket.consumed(units, now);
        }
    }

    /// What a request of `kind` consumed lately: the estimate of a read,
    /// whose request names no item sizes.
    pub(crate) fn typical(&self, kind: Kind) -> f64 {
        self.bucket(kind).typical()
    }

    /// A request of `kind` was throttled.
    pub(crate) fn throttled(&self, kind: Kind) {
        self.bucket(kind).throttled(Instant::now());
    }

    /// Whether `other` is this limit (or a clone of it).
    pub(crate) fn same(&self, other: &RateLimit) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}
