//! A clock tests set by hand, for the client's `created_at`/`updated_at`.

use entity_client::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A clock at a second the test chooses; clones share it.
#[derive(Debug, Clone)]
pub struct TestClock(Arc<AtomicU64>);

impl TestClock {
    /// A clock at `seconds` after the Unix epoch.
    pub fn at(seconds: u64) -> Self {
        Self(Arc::new(AtomicU64::new(seconds)))
    }

    /// Moves the clock to `seconds` after the epoch.
    pub fn set(&self, seconds: u64) {
        self.0.store(seconds, Ordering::SeqCst);
    }

    /// The time `seconds` after the epoch.
    pub fn time(seconds: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(seconds)
    }
}

impl Clock for TestClock {
    fn now(&self) -> SystemTime {
        Self::time(self.0.load(Ordering::SeqCst))
    }
}
