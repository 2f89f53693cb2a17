//! `query`: the typed index accessors, sent. Lazy streams of pages and
//! items, one page with a cursor, `one` and `all`.

use super::BoxFuture;
use crate::cursor;
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::expr::{Condition, Placeholders};
use entity_core::{Collection, Item, Query, Readable};
use futures::stream::{self, Stream, StreamExt, TryStreamExt};
use std::collections::HashMap;
use std::future::IntoFuture;
use std::sync::Arc;

/// A page of results and the cursor that resumes after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<E> {
    /// The items, in sort key order.
    pub items: Vec<E>,
    /// Resumes the query after this page (`None` when there is no more).
    /// Opaque and signed: safe to hand to a web client.
    pub cursor: Option<String>,
}

/// A Query, ready to send.
///
/// Nothing is sent until the request is awaited or a stream is polled. Only
/// items of the entity are returned: the identity attribute is filtered on
/// the server, so items of other entities sharing the partition never reach
/// you.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # use futures::TryStreamExt;
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(project)] #[sk(priority)] struct Task { project: String, priority: u8, done: bool }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let f = Task::fields();
/// // One page of 20, and a cursor for the next.
/// let page = client.query(Task::primary("p1").priority_gte(3).limit(20)).filter(f.done.eq(false)).await?;
/// let next = client.query(Task::primary("p1").priority_gte(3).limit(20))
///     .filter(f.done.eq(false))
///     .cursor(page.cursor.as_deref().unwrap_or_default());
/// // Every item, lazily.
/// let all: Vec<Task> = client.query(Task::primary("p1")).items().try_collect().await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited or streamed"]
pub struct QueryRequest<E> {
    client: Client,
    query: Query<E>,
    filter: Option<Condition<E>>,
    consistent: bool,
    cursor: Option<String>,
    page_size: Option<u32>,
    strict: bool,
}

impl Client {
    /// Sends a query built by a typed accessor (`Task::by_project("p1")`).
    ///
    /// Also sends a collection query (`TenantMembers::query("t-acme")`),
    /// whose items are the union of its members.
    pub fn query<E: Readable>(&self, query: impl Into<Query<E>>) -> QueryRequest<E> {
        QueryRequest {
            client: self.clone(),
            query: query.into(),
            filter: None,
            consistent: false,
            cursor: None,
            page_size: None,
            strict: false,
        }
    }
}

/// Everything a page request needs, computed once.
struct Prepared {
    client: Client,
    entity: &'static str,
    index_name: Option<String>,
    key_condition: String,
    filter: Option<String>,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    consistent: bool,
    ascending: bool,
    page_size: Option<u32>,
    fingerprint: [u8; 32],
    strict: bool,
}

struct State {
    prepared: Arc<Prepared>,
    start: Option<Item>,
    remaining: Option<u32>,
    done: bool,
}

impl<E: Readable + Send + 'static> QueryRequest<E> {
    /// Keeps only items for which `filter` holds (a FilterExpression: read
    /// capacity is still spent on the items it drops).
    pub fn filter(mut self, filter: Condition<E>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(existing) => existing.and(filter),
            None => filter,
        });
        self
    }

    /// A strongly consistent read (table and LSIs only).
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// Resumes after the page that returned this cursor. An empty string
    /// starts from the beginning.
    pub fn cursor(mut self, cursor: impl Into<String>) -> Self {
        let cursor = cursor.into();
        self.cursor = (!cursor.is_empty()).then_some(cursor);
        self
    }

    /// Fails with `Error::Decode` on an item that belongs to no entity this
    /// query reads (another service's item sharing a collection partition),
    /// instead of skipping it.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Items per request (DynamoDB's `Limit`); the query's own `limit` caps
    /// the total.
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = Some(page_size);
        self
    }

    fn prepare(self) -> Result<State> {
        if self.query.get_limit() == Some(0) || self.page_size == Some(0) {
            return Err(ValidationError::InvalidRequest(
                "a query limit or page size must be at least 1".into(),
            )
            .into());
        }
        let identity = E::identity_filter().map(|(attribute, name)| {
            entity_core::__private::condition_equals::<E>(
                attribute,
                AttributeValue::S(name.to_owned()),
            )
        });
        let filter = super::and(identity, self.filter);
        let mut placeholders = Placeholders::with(
            self.query.expression_attribute_names(),
            self.query.expression_attribute_values(),
        );
        let filter_text =
            super::render_condition(filter.as_ref(), &mut placeholders, "query filter")?;
        let rendered = placeholders.finish();
        let (names, values) = (
            rendered.names.unwrap_or_default(),
            rendered.values.unwrap_or_default(),
        );
        let (pk_attribute, pk) = self.query.partition_key();
        let mut sorted_values: Vec<String> =
            values.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
        sorted_values.sort();
        let fingerprint = cursor::fingerprint(&[
            &self.client.inner.table,
            E::TYPE_NAME,
            self.query.index_name().unwrap_or(""),
            pk_attribute,
            pk,
            &format!("{:?}", self.query.sort_condition()),
            filter_text.as_deref().unwrap_or_default(),
            &sorted_values.join("\u{1f}"),
            if self.query.scan_index_forward() {
                "asc"
            } else {
                "desc"
            },
        ]);
        let start = match &self.cursor {
            Some(text) => {
                let key = cursor::decode(&self.client.inner.cursor_secret, &fingerprint, text)?;
                check_cursor_key(&self.query, &key)?;
                Some(key)
            }
            None => None,
        };
        let done = self.query.matches_nothing();
        let prepared = Prepared {
            client: self.client,
            entity: E::TYPE_NAME,
            strict: self.strict,
            index_name: self.query.index_name().map(str::to_owned),
            key_condition: self.query.key_condition_expression(),
            filter: filter_text,
            names,
            values,
            consistent: self.consistent,
            ascending: self.query.scan_index_forward(),
            page_size: self.page_size,
            fingerprint,
        };
        Ok(State {
            prepared: Arc::new(prepared),
            start,
            remaining: self.query.get_limit(),
            done,
        })
    }

    /// A lazy stream of pages, one per request.
    pub fn pages(self) -> impl Stream<Item = Result<Page<E>>> + Send + 'static {
        let state = self.prepare();
        stream::try_unfold(Some(state), |state| async move {
            let state = match state {
                None => return Ok(None),
                Some(state) => state?,
            };
            if state.done {
                return Ok(None);
            }
            let (page, next) = fetch::<E>(state).await?;
            Ok(Some((page, Some(Ok(next)))))
        })
    }

    /// A lazy stream of items across pages.
    pub fn items(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        self.pages()
            .map_ok(|page| stream::iter(page.items.into_iter().map(Ok)))
            .try_flatten()
    }

    /// The first item, if any.
    pub async fn one(mut self) -> Result<Option<E>> {
        // Read no more than needed: one item, however many requests the
        // filter makes that take.
        if self.query.get_limit().is_none() {
            self.query = self.query.limit(1);
        }
        let items = self.items();
        futures::pin_mut!(items);
        items.next().await.transpose()
    }

    /// Every item (up to the query's limit).
    pub async fn all(self) -> Result<Vec<E>> {
        self.items().try_collect().await
    }

    /// One page: up to the query's limit (or page size) items, and a cursor
    /// when more may follow.
    async fn page(self) -> Result<Page<E>> {
        let mut state = self.prepare()?;
        let mut items = Vec::new();
        let target = state.remaining.or(state.prepared.page_size);
        if target.is_some() && state.remaining.is_none() {
            state.remaining = target;
        }
        loop {
            if state.done {
                return Ok(Page {
                    items,
                    cursor: None,
                });
            }
            let (page, next) = fetch::<E>(state).await?;
            items.extend(page.items);
            let full = target.is_some_and(|t| items.len() as u32 >= t);
            if full || next.done {
                return Ok(Page {
                    items,
                    cursor: page.cursor,
                });
            }
            state = next;
        }
    }
}

/// The identity attribute every entity item holds.
const IDENTITY: &str = entity_core::__private::IDENTITY_ATTRIBUTE;

impl<C: Collection + Readable + Send + 'static> QueryRequest<C> {
    /// Every item, grouped by member: one `Vec` per entity type.
    pub async fn grouped(self) -> Result<C::Grouped> {
        let mut grouped = C::Grouped::default();
        let items = self.items();
        futures::pin_mut!(items);
        while let Some(item) = items.next().await {
            item?.group(&mut grouped);
        }
        Ok(grouped)
    }
}

/// One request: the page it returned, and the state after it.
async fn fetch<E: Readable>(mut state: State) -> Result<(Page<E>, State)> {
    let p = &state.prepared;
    let limit = match (state.remaining, p.page_size) {
        (Some(r), Some(s)) => Some(r.min(s)),
        (r, s) => r.or(s),
    };
    let output = p
        .client
        .inner
        .sdk
        .query()
        .table_name(&p.client.inner.table)
        .set_index_name(p.index_name.clone())
        .key_condition_expression(&p.key_condition)
        .set_filter_expression(p.filter.clone())
        .set_expression_attribute_names(Some(p.names.clone()))
        .set_expression_attribute_values(Some(p.values.clone()))
        .consistent_read(p.consistent)
        .scan_index_forward(p.ascending)
        .set_limit(limit.map(|l| l as i32))
        .set_exclusive_start_key(state.start.take())
        .send()
        .await
        .map_err(|e| from_sdk("Query", p.entity, e))?;
    let raw = output.items.unwrap_or_default();
    let mut items = Vec::with_capacity(raw.len());
    for item in raw {
        let found = item.get(IDENTITY).and_then(|v| v.as_s().ok()).cloned();
        match E::read(item)? {
            Some(value) => items.push(value),
            // An item of an entity this query does not read: skipped, or
            // an error when the caller asked to see such items.
            None if p.strict => {
                return Err(entity_core::DecodeError::WrongEntity {
                    expected: E::TYPE_NAME,
                    attribute: IDENTITY,
                    found,
                }
                .into())
            }
            None => {}
        }
    }
    if let Some(remaining) = &mut state.remaining {
        *remaining = remaining.saturating_sub(items.len() as u32);
        if *remaining == 0 {
            state.done = true;
        }
    }
    let cursor = match &output.last_evaluated_key {
        Some(key) => Some(cursor::encode(
            &p.client.inner.cursor_secret,
            &p.fingerprint,
            key,
        )?),
        None => {
            state.done = true;
            None
        }
    };
    state.start = output.last_evaluated_key;
    Ok((Page { items, cursor }, state))
}

/// The key inside a cursor must lie inside the query: its partition, its sort
/// key range, and only the key attributes of the entity.
fn check_cursor_key<E: Readable>(query: &Query<E>, key: &Item) -> Result<()> {
    let outside = || Error::InvalidCursor {
        reason: "its key lies outside the query",
    };
    let (pk_attribute, pk) = query.partition_key();
    match key.get(pk_attribute) {
        Some(AttributeValue::S(value)) if value == pk => {}
        _ => return Err(outside()),
    }
    if let Some((sk_attribute, condition)) = query.sort_condition() {
        match key.get(sk_attribute) {
            Some(AttributeValue::S(value)) if condition.matches(value) => {}
            _ => return Err(outside()),
        }
    }
    let allowed = E::key_attributes();
    if key.keys().any(|name| !allowed.contains(&name.as_str())) {
        return Err(outside());
    }
    Ok(())
}

impl<E: Readable + Send + 'static> IntoFuture for QueryRequest<E> {
    type Output = Result<Page<E>>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.page())
    }
}
