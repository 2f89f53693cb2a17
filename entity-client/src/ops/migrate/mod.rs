//! `migrate`: brings every stored item of an entity to its current
//! definition (version, identity, table and index keys), in parallel scan
//! segments, resumable from a checkpoint, never overwriting a concurrent
//! write.

mod checkpoint;

pub use crate::ops::rewrite::UnreadableItem;
pub use checkpoint::{KeyValue, MigrationCheckpoint, SegmentCheckpoint};

use super::operation::{operation, Operation};
use super::paging::{self, Prepared, Source};
use super::visibility::Visibility;
use crate::error::{Result, ValidationError};
use crate::limits::{wire_count, MAX_LIMIT, MAX_SCAN_SEGMENTS};
use crate::ops::rewrite::{self, Outcome};
use crate::ops::unique::{Backfilled, UniqueConflict};
use crate::rate_limit::{Kind, RateLimit};
use crate::scoping::{Scans, Scope};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{Entity, Item};
use futures::stream::{self, StreamExt, TryStreamExt};
use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// Rewrites of one page sent at once, per segment.
const WRITES_IN_FLIGHT: usize = 8;

/// A migration of entity `E`: every item stored under its name, of any
/// version, is read through the current definition (directly, or through
/// its `upgrade_from` chain) and rewritten with `to_item()` when its stored
/// table key, index keys, version or identity differ from what the current
/// definition composes.
///
/// Each rewrite is conditioned on the item being as it was read, so a
/// concurrent write is never overwritten (it counts as
/// `skipped_concurrent`); a rewrite that moves the item to a new table key
/// is a transaction (put at the free new key, delete the unchanged old
/// item). Items that cannot be read are reported with their keys and left
/// alone. Rewrites are idempotent, so a run stopped at any point and resumed
/// from its last checkpoint migrates every item.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Task { id: String }
/// # async fn demo(client: Client, saved: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
/// let mut migration = client.migrate::<Task>().segments(4).on_progress(|p| {
///     eprintln!("{} scanned, {} rewritten", p.counts.scanned, p.counts.rewritten);
///     // persist p.checkpoint.to_json() to resume after a crash
/// });
/// if let Some(saved) = saved {
///     migration = migration.resume(entity_client::MigrationCheckpoint::from_json(&saved)?);
/// }
/// let report = migration.await?;
/// assert!(report.checkpoint.is_complete());
/// # Ok(()) }
/// ```
#[must_use = "a migration does nothing until it is awaited"]
pub struct Migrate<E> {
    client: Client,
    segments: Option<u32>,
    page_size: Option<u32>,
    consistent: bool,
    dry_run: bool,
    backfill_unique: bool,
    resume: Option<MigrationCheckpoint>,
    progress: Option<ProgressFn>,
    entity: PhantomData<fn() -> E>,
}

type ProgressFn = Box<dyn FnMut(&MigrationProgress) + Send>;

/// Items counted by a migration run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MigrationCounts {
    /// Items of the entity read.
    pub scanned: u64,
    /// Items rewritten (in a dry run: that would be).
    pub rewritten: u64,
    /// Items whose keys, version and identity were already current.
    pub up_to_date: u64,
    /// Items changed by another writer between the read and the rewrite,
    /// left as that writer wrote them.
    pub skipped_concurrent: u64,
    /// Items the current definition cannot read, left as they are.
    pub unreadable: u64,
    /// Unique sentinels written for items that lacked them (with
    /// [`Migrate::backfill_unique`]; in a dry run: missing).
    pub sentinels_written: u64,
    /// Unique values whose sentinel names another item (with
    /// [`Migrate::backfill_unique`]).
    pub unique_conflicts: u64,
}

/// Where a migration stands, after a page.
#[derive(Debug, Clone, PartialEq)]
pub struct MigrationProgress {
    /// What this run has counted so far.
    pub counts: MigrationCounts,
    /// What a run resumed from here starts after.
    pub checkpoint: MigrationCheckpoint,
}

impl MigrationProgress {
    /// Segments finished, out of all.
    pub fn segments_done(&self) -> (usize, usize) {
        let segments = &self.checkpoint.segments;
        let done = segments
            .iter()
            .filter(|s| matches!(s, SegmentCheckpoint::Done))
            .count();
        (done, segments.len())
    }
}

/// What a migration run did.
#[derive(Debug, Clone, PartialEq)]
pub struct MigrationReport {
    /// What this run counted (a resumed run counts only what it read).
    pub counts: MigrationCounts,
    /// Every item that could not be read, with its key.
    pub unreadable: Vec<UnreadableItem>,
    /// Every unique value two items share (with
    /// [`Migrate::backfill_unique`]): the item left without a sentinel and
    /// the item the sentinel names.
    pub unique_conflicts: Vec<UniqueConflict>,
    /// The final checkpoint: every segment done.
    pub checkpoint: MigrationCheckpoint,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
}

impl<S: Scope> Client<S> {
    /// Migrates every stored item of `E` to its current definition: see
    /// [`Migrate`]. A migration scans the table, so it runs in the scopes
    /// that scan: the plain client's, and `client.cross_tenant()`'s for a
    /// tenant entity (every tenant's items).
    pub fn migrate<E: Entity>(&self) -> Migrate<E>
    where
        S: Scans<E>,
    {
        Migrate {
            client: self.reach::<E>(),
            segments: None,
            page_size: None,
            consistent: true,
            dry_run: false,
            backfill_unique: false,
            resume: None,
            progress: None,
            entity: PhantomData,
        }
    }
}

impl<E: Entity + Send + 'static> Migrate<E> {
    /// Scans in `segments` parallel segments (default 1; at most
    /// 1,000,000). A resumed run takes the checkpoint's count.
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = Some(segments);
        self
    }

    /// Items evaluated per scan request (DynamoDB's `Limit`); progress is
    /// reported after each.
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = Some(page_size);
        self
    }

    /// Reads with strongly consistent scans (the default), so a rewrite's
    /// condition is checked against the latest item. Off halves the read
    /// cost; a stale read then counts as `skipped_concurrent`.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// Counts what would be rewritten and writes nothing.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Also makes sure every item's unique values have their sentinels
    /// (`#[entity(unique(..))]`): for items written before a constraint was
    /// declared. A missing sentinel is written (conditioned on being free
    /// or the item's own), one naming the item is left, and one naming
    /// another item is reported in [`MigrationReport::unique_conflicts`]
    /// with both keys, nothing changed: two items that share a value need a
    /// decision only their owner can make. Each sentinel is written with a
    /// check that its item still holds the value; soft-deleted and expired
    /// items are skipped (their values are free) unless
    /// `soft_delete(keep_unique)`; an item the migration moves takes its
    /// sentinels along (one another item holds is reported the same way).
    /// A consistent GetItem per value, and a two-item transaction per
    /// missing sentinel (a dry run only reads).
    pub fn backfill_unique(mut self, backfill: bool) -> Self {
        self.backfill_unique = backfill;
        self
    }

    /// Holds this migration (its scan, rewrites and unique backfill) to
    /// `limit` instead of the client's
    /// ([`Client::with_rate_limit`](crate::Client::with_rate_limit)):
    /// every segment draws on the one budget, and each page waits until
    /// the reads and writes of the pages before it are paid for. A smaller
    /// [`page_size`](Self::page_size) smooths the rate.
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity, RateLimit};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Task { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let report = client
    ///     .migrate::<Task>()
    ///     .segments(8)
    ///     .page_size(100)
    ///     .rate_limit(RateLimit::adaptive(400.0, 200.0))
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.client = self.client.with_rate_limit(limit);
        self
    }

    /// Continues a run from a checkpoint it reported: segments already done
    /// are not read again, the others continue after their last key.
    pub fn resume(mut self, checkpoint: MigrationCheckpoint) -> Self {
        self.resume = Some(checkpoint);
        self
    }

    /// Called after each page of each segment (one call at a time) with the
    /// counts so far and the checkpoint.
    pub fn on_progress(
        mut self,
        progress: impl FnMut(&MigrationProgress) + Send + 'static,
    ) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }

    /// The checkpoint to start from.
    fn start(&self) -> Result<MigrationCheckpoint> {
        let Some(checkpoint) = &self.resume else {
            let segments = self.segments.unwrap_or(1);
            let count = wire_count("segments", segments, MAX_SCAN_SEGMENTS)?;
            let count = usize::try_from(count).unwrap_or(1);
            return Ok(MigrationCheckpoint::start(E::MODEL.name, count));
        };
        checkpoint.check::<E>()?;
        let count = checkpoint.segments.len();
        if self
            .segments
            .is_some_and(|s| usize::try_from(s) != Ok(count))
        {
            return Err(ValidationError::InvalidRequest(format!(
                "the checkpoint has {count} segments; resume with the same number"
            ))
            .into());
        }
        u32::try_from(count)
            .map_err(|_| ValidationError::InvalidRequest("too many segments".into()))
            .and_then(|c| wire_count("segments", c, MAX_SCAN_SEGMENTS))?;
        Ok(checkpoint.clone())
    }

    async fn run(mut self) -> Result<MigrationReport> {
        let checkpoint = self.start()?;
        if let Some(size) = self.page_size {
            wire_count("page size", size, MAX_LIMIT)?;
        }
        let table = self.client.checked_table()?.to_owned();
        let total = i32::try_from(checkpoint.segments.len()).unwrap_or(i32::MAX);
        let pending: Vec<(i32, Option<Item>)> = checkpoint
            .segments
            .iter()
            .enumerate()
            .filter(|(_, s)| !matches!(s, SegmentCheckpoint::Done))
            .map(|(i, s)| (i32::try_from(i).unwrap_or(i32::MAX), s.start_key()))
            .collect();
        let run = Arc::new(Run {
            client: self.client.clone(),
            table,
            page_size: self.page_size,
            consistent: self.consistent,
            dry_run: self.dry_run,
            backfill_unique: self.backfill_unique && !E::MODEL.managed.unique.is_empty(),
            state: Mutex::new(State {
                counts: MigrationCounts::default(),
                unreadable: Vec::new(),
                unique_conflicts: Vec::new(),
                checkpoint,
                progress: self.progress.take(),
            }),
        });
        stream::iter(pending)
            .map(|(segment, start)| run.clone().segment::<E>(segment, total, start))
            .buffer_unordered(super::scan::SEGMENTS_IN_FLIGHT)
            .try_collect::<()>()
            .await?;
        let state = run.lock();
        Ok(MigrationReport {
            counts: state.counts,
            unreadable: state.unreadable.clone(),
            unique_conflicts: state.unique_conflicts.clone(),
            checkpoint: state.checkpoint.clone(),
            dry_run: self.dry_run,
        })
    }
}

/// A run's settings and its shared state.
struct Run {
    client: Client,
    table: String,
    page_size: Option<u32>,
    consistent: bool,
    dry_run: bool,
    backfill_unique: bool,
    state: Mutex<State>,
}

/// What the segments share: counts, the checkpoint, the progress callback.
struct State {
    counts: MigrationCounts,
    unreadable: Vec<UnreadableItem>,
    unique_conflicts: Vec<UniqueConflict>,
    checkpoint: MigrationCheckpoint,
    progress: Option<ProgressFn>,
}

impl Run {
    /// The state, even after a progress callback panicked holding it (its
    /// counts and checkpoint are still whole: they are updated before the
    /// callback runs).
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Migrates one segment, page by page, from `start`.
    async fn segment<E: Entity>(
        self: Arc<Self>,
        segment: i32,
        total: i32,
        mut start: Option<Item>,
    ) -> Result<()> {
        let prepared = self.scan_request::<E>(segment, total);
        let limit = self
            .page_size
            .map(|s| wire_count("page size", s, MAX_LIMIT))
            .transpose()?;
        loop {
            // A page's rewrites are charged as they are sent: the next page
            // waits for them to be paid, and for its read (`paging::send`).
            self.client.capacity_paid_up(Kind::Write).await;
            let (items, last) = paging::send(&prepared, start.take(), limit).await?;
            let outcomes: Vec<(Outcome, Backfilled)> = stream::iter(items)
                .map(|item| {
                    rewrite::migrate_item::<E>(
                        &self.client,
                        &self.table,
                        item,
                        self.dry_run,
                        self.backfill_unique,
                    )
                })
                .buffer_unordered(WRITES_IN_FLIGHT)
                .try_collect()
                .await?;
            let position = SegmentCheckpoint::after(last.as_ref())?;
            self.record(segment, outcomes, position);
            match last {
                Some(key) => start = Some(key),
                None => return Ok(()),
            }
        }
    }

    /// A scan of one segment for items of `E`, of any version.
    fn scan_request<E: Entity>(&self, segment: i32, total: i32) -> Prepared {
        let model = E::MODEL;
        let names = HashMap::from([("#entity".to_owned(), model.identity_attribute.to_owned())]);
        let values = HashMap::from([(
            ":entity".to_owned(),
            AttributeValue::S(model.name.to_owned()),
        )]);
        Prepared {
            client: self.client.clone(),
            table: self.table.clone(),
            entity: model.name,
            source: Source::Scan {
                segment: Some((segment, total)),
            },
            filter: Some("#entity = :entity".to_owned()),
            names: Some(names),
            values: Some(values),
            consistent: self.consistent,
            page_size: self.page_size,
            // No cursor is handed out: the checkpoint holds the raw key.
            fingerprint: [0; 32],
            strict: false,
            // A migration rewrites every item, expired or deleted alike.
            visibility: Visibility::default(),
        }
    }

    /// Counts a page's outcomes, moves the segment's checkpoint past it,
    /// and reports progress.
    fn record(
        &self,
        segment: i32,
        outcomes: Vec<(Outcome, Backfilled)>,
        position: SegmentCheckpoint,
    ) {
        let mut state = self.lock();
        let state = &mut *state;
        for (outcome, backfilled) in outcomes {
            state.counts.scanned += 1;
            state.counts.sentinels_written += backfilled.written;
            state.counts.unique_conflicts += backfilled.conflicts.len() as u64;
            state.unique_conflicts.extend(backfilled.conflicts);
            match outcome {
                Outcome::Rewritten => state.counts.rewritten += 1,
                Outcome::UpToDate => state.counts.up_to_date += 1,
                Outcome::SkippedConcurrent => state.counts.skipped_concurrent += 1,
                Outcome::Unreadable(item) => {
                    state.counts.unreadable += 1;
                    state.unreadable.push(item);
                }
            }
        }
        if let Some(slot) = usize::try_from(segment)
            .ok()
            .and_then(|i| state.checkpoint.segments.get_mut(i))
        {
            *slot = position;
        }
        if let Some(progress) = &mut state.progress {
            progress(&MigrationProgress {
                counts: state.counts,
                checkpoint: state.checkpoint.clone(),
            });
        }
    }
}

impl<E: Entity + Send + 'static> Operation for Migrate<E> {
    type Output = MigrationReport;
    const READS_FIRST: bool = true;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "migrate",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<MigrationReport>> + Send + 'static {
        self.run()
    }
}

operation!([E: Entity + Send + 'static] Migrate<E> => MigrationReport);
