//! `scan`: every item of an entity in the table, optionally filtered. Read
//! like a query (one page with an encrypted cursor, a stream of pages, a stream
//! of items), or in parallel segments merged into one stream of items.

use super::operation::{operation, Operation};
use super::paging::{self, Page, Prepared, Source, State};
use super::visibility::{Shown, Visibility};
use crate::cursor::Fingerprint;
use crate::error::{Error, Result, ValidationError};
use crate::limits::{wire_count, MAX_SCAN_SEGMENTS};
use crate::rate_limit::RateLimit;
use crate::scoping::{Scans, Scope};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::expr::{Condition, Placeholders};
use entity_core::{Entity, Item};
use futures::stream::{self, Stream, StreamExt, TryStreamExt};
use std::future::Future;
use std::marker::PhantomData;

/// Segments of a parallel scan read at once; the others start as these
/// finish, so a scan of a million segments holds no more than this many
/// requests (or builders) at a time.
pub(crate) const SEGMENTS_IN_FLIGHT: usize = 16;

/// A Scan of one entity's items (the identity attribute is filtered on the
/// server).
///
/// `.await` reads one page (up to the limit or page size; everything when
/// neither is set) with a cursor that resumes after it; [`pages`](Scan::pages)
/// and [`items`](Scan::items) stream lazily. With
/// [`segments`](Scan::segments), a parallel scan whose segments are read
/// concurrently and merged into one stream of items.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # use futures::TryStreamExt;
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32 }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let f = Doc::fields();
/// let popular: Vec<Doc> = client.scan::<Doc>().filter(f.views.gt(100u32)).segments(4).all().await?;
/// // One page of up to 20, and a cursor for the next.
/// let page = client.scan::<Doc>().limit(20).await?;
/// let next = client.scan::<Doc>().limit(20).cursor(page.cursor.unwrap_or_default()).await?;
/// # Ok(()) }
/// ```
#[must_use = "a scan does nothing until it is awaited or streamed"]
pub struct Scan<E> {
    client: Client,
    filter: Option<Condition<E>>,
    shown: Shown,
    segments: u32,
    consistent: bool,
    page_size: Option<u32>,
    limit: Option<u32>,
    cursor: Option<String>,
    entity: PhantomData<fn() -> E>,
}

impl Client {
    /// `scan` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn scan_any<E: Entity>(&self) -> Scan<E> {
        Scan {
            client: self.clone(),
            filter: None,
            shown: Shown::default(),
            segments: 1,
            consistent: false,
            page_size: None,
            limit: None,
            cursor: None,
            entity: PhantomData,
        }
    }
}

impl<S: Scope> Client<S> {
    /// Scans the table for items of `E`.
    pub fn scan<E: Entity>(&self) -> Scan<E>
    where
        S: Scans<E>,
    {
        self.reach::<E>().scan_any()
    }
}

impl<E: Entity + Send + 'static> Scan<E> {
    /// Keeps only items for which `filter` holds (a FilterExpression: read
    /// capacity is still spent on the items it drops).
    pub fn filter(mut self, filter: Condition<E>) -> Self {
        self.filter = super::and(self.filter.take(), Some(filter));
        self
    }

    /// Reads `segments` segments concurrently (a parallel scan), merged into
    /// one stream of items in no particular order. At least 1 (0 reads as
    /// 1), at most DynamoDB's 1,000,000. A parallel scan has no single
    /// position, so it is read with [`items`](Scan::items) or
    /// [`all`](Scan::all), not by page.
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments.max(1);
        self
    }

    /// A strongly consistent read.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// Items evaluated per request (DynamoDB's `Limit`).
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = Some(page_size);
        self
    }

    crate::ops::visibility::shown_methods!(listing);

    /// Holds this scan to `limit` instead of the client's
    /// ([`Client::with_rate_limit`](crate::Client::with_rate_limit)): each
    /// page waits until the pages before it are paid for, every parallel
    /// segment drawing on the one budget. A
    /// [`page_size`](Self::page_size) smooths the rate (a page of up to
    /// 1 MB costs up to 128 read units).
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity, RateLimit};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let limit = RateLimit::fixed(100.0, f64::INFINITY);
    /// let docs: Vec<Doc> = client.scan().segments(4).page_size(200).rate_limit(limit).all().await?;
    /// # Ok(()) }
    /// ```
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.client = self.client.with_rate_limit(limit);
        self
    }

    /// At most `limit` items in all.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Resumes after the page that returned this cursor. An empty string
    /// starts from the beginning.
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        let cursor = cursor.into();
        self.cursor = (!cursor.is_empty()).then_some(cursor);
        self
    }

    /// The read of one segment (`None`: the whole table in one sequence).
    fn prepare(&self, segment: Option<(i32, i32)>) -> Result<State> {
        let table = self.client.checked_table()?.to_owned();
        let model = E::MODEL;
        let identity = entity_core::__private::condition_equals::<E>(
            model.identity_attribute,
            AttributeValue::S(model.name.to_owned()),
        );
        let filter = super::and(Some(identity), self.filter.clone());
        let mut placeholders = Placeholders::default();
        let filter = super::render_condition(filter.as_ref(), &mut placeholders, "scan filter")?;
        let rendered = placeholders.finish();
        let fingerprint = Fingerprint::new("scan")
            .text(&table)
            .text(model.name)
            .optional(filter.as_deref())
            .names(rendered.names.as_ref())
            .values(rendered.values.as_ref())?
            .finish();
        let start = paging::resume(
            &self.client,
            &fingerprint,
            self.cursor.as_deref(),
            check_cursor_key::<E>,
        )?;
        let prepared = Prepared {
            client: self.client.clone(),
            table,
            entity: model.name,
            source: Source::Scan { segment },
            filter,
            names: rendered.names,
            values: rendered.values,
            consistent: self.consistent,
            page_size: self.page_size,
            fingerprint,
            strict: false,
            visibility: Visibility::of::<E>(&self.client, self.shown),
        };
        State::new(prepared, start, self.limit)
    }

    /// The read of the whole table in one sequence: what pages and cursors
    /// need.
    fn sequential(self) -> Result<State> {
        if self.segments > 1 {
            return Err(ValidationError::InvalidRequest(
                "a parallel scan is read with items() or all(): it has no single cursor".into(),
            )
            .into());
        }
        self.prepare(None)
    }

    /// A lazy stream of pages, one per request (not for a parallel scan).
    pub fn pages(self) -> impl Stream<Item = Result<Page<E>>> + Send + 'static {
        let span = self.span();
        crate::trace::traced_stream(span, paging::pages(self.sequential()))
    }

    /// A lazy stream of the items of every segment.
    pub fn items(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        let span = self.span();
        crate::trace::traced_stream(span, self.segment_items())
    }

    /// The items of every segment, merged.
    fn segment_items(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        if self.segments == 1 {
            return paging::items(self.prepare(None)).boxed();
        }
        let total = match wire_count("segments", self.segments, MAX_SCAN_SEGMENTS) {
            Ok(total) => total,
            Err(e) => return stream::once(async { Err(Error::from(e)) }).boxed(),
        };
        if self.cursor.is_some() {
            return paging::items(self.sequential()).boxed();
        }
        let limit = self.limit.and_then(|l| usize::try_from(l).ok());
        // Each segment's request is built when the segment starts.
        let merged = stream::iter(0..total)
            .map(move |segment| paging::items(self.prepare(Some((segment, total)))).boxed())
            .flatten_unordered(SEGMENTS_IN_FLIGHT);
        match limit {
            Some(limit) => merged.take(limit).boxed(),
            None => merged.boxed(),
        }
    }

    /// Every item.
    pub async fn all(self) -> Result<Vec<E>> {
        let span = self.span();
        let all: super::BoxFuture<'static, Result<Vec<E>>> = match self.segments {
            1 => Box::pin(paging::all(self.prepare(None))),
            _ => Box::pin(self.segment_items().try_collect()),
        };
        crate::trace::traced(span, || all).await
    }
}

/// A scan cursor's key is a table key of `E`: its partition and sort key
/// attributes, strings, and nothing else.
pub(crate) fn check_cursor_key<E: Entity>(key: &Item) -> Result<()> {
    let primary = &E::MODEL.primary;
    let is_key = |name: &str| super::is_table_key::<E>(name);
    let present = |attribute: &str| {
        matches!(
            key.get(attribute),
            Some(AttributeValue::S(_) | AttributeValue::N(_))
        )
    };
    let complete =
        present(primary.pk.attribute) && primary.sk.is_none_or(|sk| present(sk.attribute));
    if !complete || !key.keys().all(|name| is_key(name)) {
        return Err(Error::InvalidCursor {
            reason: "its key is not a table key of the scanned entity",
        });
    }
    Ok(())
}

impl<E: Entity + Send + 'static> Operation for Scan<E> {
    type Output = Page<E>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "scan",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<Page<E>>> + Send + 'static {
        paging::page(self.sequential())
    }
}

operation!([E: Entity + Send + 'static] Scan<E> => Page<E>);
