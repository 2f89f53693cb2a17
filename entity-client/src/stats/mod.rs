//! Request statistics and the anti-pattern report: which partitions are
//! hot, which keys are throttled, where scans, filters and unbounded
//! queries waste capacity, which items near the 400 KB limit.
//!
//! [`Client::with_stats`] installs an SDK interceptor on a copy of the
//! client's SDK client; every request then passes its facts (read from the
//! typed input and output) to a recorder that keeps a sliding window of
//! bounded size. [`Stats::report`] runs the detectors over the window and
//! returns typed findings ([`Finding`]) with recommendations.
//!
//! ```
//! # #[cfg(not(feature = "embedded"))] fn main() {}
//! # #[cfg(feature = "embedded")]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use entity_client::{Entity, StatsConfig};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(schema = "app")]
//! #[pk(user)]
//! #[sk(id)]
//! struct Note { user: String, id: u32, text: String }
//!
//! let server = entity_client::EmbeddedDynamo::start().await?;
//! let client = server.client("app").with_stats(StatsConfig::default());
//! client.create_table(&[Note::MODEL]).await?;
//! client.create(&Note { user: "u1".into(), id: 1, text: "hi".into() }).await?;
//! client.query(Note::primary("u1")).await?;
//!
//! let report = client.stats().expect("stats are on").report();
//! assert_eq!(report.operations.len(), 2); // PutItem and Query on `app`
//! println!("{report}");
//! # Ok(()) }
//! ```

mod config;
mod cost;
mod detect;
pub(crate) mod extract;
mod interceptor;
mod record;
mod recorder;
mod report;
mod window;

pub use config::{KeyMode, StatsConfig, Thresholds};
pub use cost::Cost;
pub use record::{KeyLabel, Operation};
pub use report::{Finding, KeyStats, OperationStats, Report};

use crate::client::{Client, Extension};
use extract::Labeler;
use recorder::Recorder;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use window::Window;

/// The statistics of a client and its clones ([`Client::stats`]).
#[derive(Debug, Clone)]
pub struct Stats {
    recorder: Arc<Recorder>,
}

impl Extension for Stats {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Stats {
    fn new(config: StatsConfig) -> Self {
        let window = Window::new(
            Instant::now(),
            config.bucket_width(),
            config.buckets,
            config.max_keys,
            &config.thresholds,
        );
        let labeler = Labeler {
            mode: config.key_mode,
            hash_key: Default::default(),
            partition_attribute: config.partition_key_attribute.clone(),
        };
        Self {
            recorder: Arc::new(Recorder {
                config,
                labeler,
                window: Mutex::new(window),
            }),
        }
    }

    /// What the window holds, and what the detectors make of it.
    pub fn report(&self) -> Report {
        let totals = self.recorder.window().totals(Instant::now());
        Report::new(&totals, &self.recorder.config)
    }

    /// Partition keys held now (at most `buckets * max_keys`).
    pub fn tracked_keys(&self) -> usize {
        self.recorder.window().tracked_keys()
    }

    /// Forgets everything recorded so far.
    pub fn reset(&self) {
        self.recorder.window().clear();
    }

    /// The configuration.
    pub fn config(&self) -> &StatsConfig {
        &self.recorder.config
    }
}

impl Client {
    /// The same client, recording request statistics of every operation
    /// it and its clones send (see [`Stats`]).
    ///
    /// The statistics come from an interceptor on a copy of the SDK client,
    /// which also asks every request for `ReturnConsumedCapacity: TOTAL`
    /// (unless it asked for `INDEXES`). Enable it once: calling it again
    /// starts a fresh recorder, but the first one's interceptor stays on
    /// the SDK client.
    pub fn with_stats(self, config: StatsConfig) -> Self {
        self.recorded(Stats::new(config))
    }
}

impl<S: crate::scoping::Scope> Client<S> {
    /// The same client (in the same scope), recording into `stats`.
    fn recorded(&self, stats: Stats) -> Self {
        let interceptor = interceptor::StatsInterceptor {
            recorder: Arc::clone(&stats.recorder),
        };
        // The batch SDK client is made again from the recording one.
        self.intercepted(interceptor, |inner| inner.stats = Some(Arc::new(stats)))
    }

    /// Runs `run` with a copy of this client that records every request
    /// it sends, and returns `run`'s output with what those requests cost
    /// ([`Cost`]: requests, capacity units as DynamoDB reported them, items
    /// read and returned). For a test that holds an access pattern to a
    /// budget.
    ///
    /// Only the requests of the client handed to `run` (and its clones)
    /// count; each measure records on its own.
    ///
    /// ```
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use entity_client::Entity;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "app")]
    /// #[pk(user)]
    /// #[sk(id)]
    /// struct Note { user: String, id: u32, text: String }
    ///
    /// let server = entity_client::EmbeddedDynamo::start().await?;
    /// let client = server.client("app");
    /// client.create_table(&[Note::MODEL]).await?;
    /// client.put(&Note { user: "u1".into(), id: 1, text: "hi".into() }).await?;
    ///
    /// let (notes, cost) = client
    ///     .measure(|c| async move { c.query(Note::primary("u1")).all().await })
    ///     .await;
    /// assert_eq!(notes?.len(), 1);
    /// assert_eq!(cost.requests, 1);
    /// assert!(cost.read_units <= 0.5, "{cost}"); // one small item, eventually consistent
    /// # Ok(()) }
    /// ```
    pub async fn measure<T, F, Fut>(&self, run: F) -> (T, Cost)
    where
        F: FnOnce(Self) -> Fut,
        Fut: std::future::Future<Output = T>,
    {
        // One bucket as wide as any test: nothing ages out while it runs.
        let config = StatsConfig::default().window(cost::MEASURED, 1);
        let measured = self.recorded(Stats::new(config));
        let output = run(measured.clone()).await;
        let report = measured
            .inner
            .stats
            .as_deref()
            .and_then(|stats| stats.as_any().downcast_ref::<Stats>())
            .map(Stats::report);
        (output, Cost::of(report))
    }
}

impl Client {
    /// The request statistics, if [`Client::with_stats`] turned them on.
    pub fn stats(&self) -> Option<&Stats> {
        self.inner
            .stats
            .as_deref()
            .and_then(|stats| stats.as_any().downcast_ref())
    }
}
