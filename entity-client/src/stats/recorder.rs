//! What the statistics of a client record into: its configuration, how
//! keys are labelled, and the sliding window. Shared by [`super::Stats`]
//! and the interceptor that feeds it.

use super::config::StatsConfig;
use super::extract::Labeler;
use super::window::Window;
use std::sync::{Mutex, MutexGuard};

/// The statistics of a client as they are recorded.
#[derive(Debug)]
pub(crate) struct Recorder {
    pub(super) config: StatsConfig,
    pub(super) labeler: Labeler,
    pub(super) window: Mutex<Window>,
}

impl Recorder {
    /// The window; a panic elsewhere while it was held leaves counters at
    /// worst half-updated, never unsafe, so a poisoned lock is used anyway.
    pub(super) fn window(&self) -> MutexGuard<'_, Window> {
        self.window.lock().unwrap_or_else(|e| e.into_inner())
    }
}
