//! `scan`: every item of an entity in the table, optionally filtered, in one
//! or several parallel segments merged into one stream.

use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::expr::{Condition, Placeholders};
use entity_core::{Entity, Item};
use futures::stream::{self, Stream, StreamExt, TryStreamExt};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

/// A Scan of one entity's items (the identity attribute is filtered on the
/// server). With [`segments`](Scan::segments), a parallel scan whose
/// segments are read concurrently and merged into one stream.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # use futures::TryStreamExt;
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32 }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let f = Doc::fields();
/// let popular: Vec<Doc> = client.scan::<Doc>().filter(f.views.gt(100u32)).segments(4).all().await?;
/// # Ok(()) }
/// ```
#[must_use = "a scan does nothing until it is streamed"]
pub struct Scan<E> {
    client: Client,
    filter: Option<Condition<E>>,
    segments: u32,
    consistent: bool,
    page_size: Option<u32>,
    entity: PhantomData<fn() -> E>,
}

impl Client {
    /// Scans the table for items of `E`.
    pub fn scan<E: Entity>(&self) -> Scan<E> {
        Scan {
            client: self.clone(),
            filter: None,
            segments: 1,
            consistent: false,
            page_size: None,
            entity: PhantomData,
        }
    }
}

struct Prepared {
    client: Client,
    entity: &'static str,
    filter: String,
    names: Option<HashMap<String, String>>,
    values: Option<HashMap<String, AttributeValue>>,
    consistent: bool,
    page_size: Option<u32>,
    total_segments: u32,
}

impl<E: Entity + Send + 'static> Scan<E> {
    /// Keeps only items for which `filter` holds.
    pub fn filter(mut self, filter: Condition<E>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing.and(filter),
            None => filter,
        });
        self
    }

    /// Reads `segments` segments concurrently (a parallel scan), merged into
    /// one stream in no particular order. At least 1.
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

    fn prepare(self) -> Result<Arc<Prepared>> {
        if self.page_size == Some(0) {
            return Err(ValidationError::InvalidRequest(
                "a scan page size must be at least 1".into(),
            )
            .into());
        }
        let model = E::MODEL;
        let identity = entity_core::__private::condition_equals::<E>(
            model.identity_attribute,
            AttributeValue::S(model.name.to_owned()),
        );
        let filter = match self.filter {
            Some(filter) => identity.and(filter),
            None => identity,
        };
        let mut placeholders = Placeholders::default();
        let filter = filter.render(&mut placeholders).map_err(|source| {
            Error::Validation(ValidationError::Value {
                context: "scan filter",
                source,
            })
        })?;
        let rendered = placeholders.finish();
        Ok(Arc::new(Prepared {
            client: self.client,
            entity: model.name,
            filter,
            names: rendered.names,
            values: rendered.values,
            consistent: self.consistent,
            page_size: self.page_size,
            total_segments: self.segments,
        }))
    }

    /// A lazy stream of the items of every segment.
    pub fn items(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        match self.prepare() {
            Err(e) => stream::iter(vec![Err(e)]).boxed(),
            Ok(prepared) => {
                let segments = (0..prepared.total_segments)
                    .map(|segment| segment_items::<E>(prepared.clone(), segment).boxed());
                stream::select_all(segments).boxed()
            }
        }
    }

    /// Every item.
    pub async fn all(self) -> Result<Vec<E>> {
        self.items().try_collect().await
    }
}

fn segment_items<E: Entity + Send + 'static>(
    prepared: Arc<Prepared>,
    segment: u32,
) -> impl Stream<Item = Result<E>> + Send + 'static {
    // State: the next start key; `None` once the segment is finished.
    stream::try_unfold(Some(None::<Item>), move |start| {
        let prepared = prepared.clone();
        async move {
            let Some(start) = start else {
                return Ok::<_, Error>(None);
            };
            let parallel = prepared.total_segments > 1;
            let output = prepared
                .client
                .inner
                .sdk
                .scan()
                .table_name(&prepared.client.inner.table)
                .filter_expression(&prepared.filter)
                .set_expression_attribute_names(prepared.names.clone())
                .set_expression_attribute_values(prepared.values.clone())
                .consistent_read(prepared.consistent)
                .set_limit(prepared.page_size.map(|l| l as i32))
                .set_segment(parallel.then_some(segment as i32))
                .set_total_segments(parallel.then_some(prepared.total_segments as i32))
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| from_sdk("Scan", prepared.entity, e))?;
            let items = output
                .items
                .unwrap_or_default()
                .into_iter()
                .map(E::from_item)
                .collect::<Result<Vec<E>, _>>()?;
            let next = output.last_evaluated_key.map(Some);
            Ok(Some((stream::iter(items.into_iter().map(Ok)), next)))
        }
    })
    .try_flatten()
}
