//! `query`: the typed index accessors, sent. Lazy streams of pages and
//! items, one page with a cursor, `one` and `all`.

use super::operation::{operation, Operation};
use super::paging::{self, Page, Prepared, Source, State};
use super::sharded::{self, Sharded};
use super::visibility::{Shown, Visibility};
use super::BoxFuture;
use crate::cursor::Fingerprint;
use crate::cursor::ShardPosition;
use crate::error::{Error, Result, ValidationError};
use crate::limits::check_key;
use crate::scoping::{Reads, Scope};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::expr::{Condition, Placeholders};
use entity_core::{Collection, IndexKind, IndexProjection, Item, Query, Readable, SortCondition};
use futures::stream::{Stream, StreamExt};
use std::future::Future;

/// A Query, ready to send. `.await` reads one page (up to the query's
/// limit or the page size; everything when neither is set).
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
/// let page = client.query(Task::primary("p1").priority().gte(3)).limit(20).filter(f.done.eq(false)).await?;
/// let next = client.query(Task::primary("p1").priority().gte(3).limit(20))
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
    shown: Shown,
    consistent: bool,
    cursor: Option<String>,
    page_size: Option<u32>,
    strict: bool,
}

impl Client {
    /// `query` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn query_any<E: Readable>(&self, query: impl Into<Query<E>>) -> QueryRequest<E> {
        QueryRequest {
            client: self.clone(),
            query: query.into(),
            filter: None,
            shown: Shown::default(),
            consistent: false,
            cursor: None,
            page_size: None,
            strict: false,
        }
    }
}

impl<S: Scope> Client<S> {
    /// Sends a query built by a typed accessor (`Task::by_project("p1")`).
    ///
    /// Also sends a collection query (`TenantMembers::query("t-acme")`),
    /// whose items are the union of its members.
    ///
    /// A query of a projected index reads its view (`TaskByOwnerView`),
    /// through any client that reads the entity.
    pub fn query<E: Readable>(&self, query: impl Into<Query<E>>) -> QueryRequest<E>
    where
        S: Reads<E::Scoped>,
    {
        let query = self.scope.query(query.into().cast::<E::Scoped>());
        self.reach::<E::Scoped>().query_any(query.cast::<E>())
    }
}

impl<E> QueryRequest<E> {
    /// Its client, scoped as the query is.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }
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

    crate::ops::visibility::shown_methods!(listing);

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

    /// Items per request (DynamoDB's `Limit`); [`limit`](Self::limit) caps
    /// the total.
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = Some(page_size);
        self
    }

    /// At most `limit` items in all, across as many requests as that takes:
    /// the query's own limit (`Task::by_project("p1").limit(20)`), set here
    /// instead, replacing one the query has. Each request still asks for at
    /// most [`page_size`](Self::page_size) items; a cursor does not carry
    /// the limit, so a resumed read counts it again from there.
    pub fn limit(mut self, limit: u32) -> Self {
        self.query = self.query.limit(limit);
        self
    }

    fn prepare(self) -> Result<State> {
        let (prepared, query, cursor) = self.prepared()?;
        let start = paging::resume(
            &prepared.client,
            &prepared.fingerprint,
            cursor.as_deref(),
            |key| check_cursor_key(&query, key),
        )?;
        let state = State::new(prepared, start, query.get_limit())?;
        Ok(match query.matches_nothing() {
            true => state.finished(),
            false => state,
        })
    }

    /// A query of a sharded partition: every shard, merged.
    fn prepare_sharded(self) -> Result<Sharded<E>> {
        let (prepared, query, cursor) = self.prepared()?;
        let Some(sharding) = query.sharding().copied() else {
            return Err(ValidationError::InvalidRequest("the query is not sharded".into()).into());
        };
        let positions = match cursor {
            Some(text) => {
                let secret = &prepared.client.inner.cursor_secret;
                let positions = crate::cursor::decode_shards(secret, &prepared.fingerprint, &text)?;
                check_shard_positions(&query, &positions)?;
                Some(positions)
            }
            None => None,
        };
        let pk_attribute = query.partition_key().0;
        let state = Sharded::new(
            prepared,
            &sharding,
            pk_attribute,
            positions,
            query.get_limit(),
        )?;
        Ok(match query.matches_nothing() {
            true => state.finished(),
            false => state,
        })
    }

    /// The request, its query and the caller's cursor.
    fn prepared(self) -> Result<(Prepared, Query<E>, Option<String>)> {
        let table = self.client.checked_table()?.to_owned();
        check_query_keys(&self.query)?;
        if let Some(index) = self.query.index_name() {
            if self.consistent && E::index_kind(index) == Some(IndexKind::Global) {
                let index = index.to_owned();
                return Err(ValidationError::ConsistentReadOnGlobalIndex { index }.into());
            }
            // A partial item would fail to decode, item after item: refused
            // before anything is read.
            match E::index_projection(index) {
                None | Some(IndexProjection::All) => {}
                Some(projection) => {
                    return Err(ValidationError::QueryOfProjectedIndex {
                        index: index.to_owned(),
                        entity: E::TYPE_NAME,
                        projection: projection.as_str(),
                    }
                    .into())
                }
            }
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
            typed_key_values(&self.query, self.query.expression_attribute_values()),
        );
        let filter = super::render_condition(filter.as_ref(), &mut placeholders, "query filter")?;
        let rendered = placeholders.finish();
        let key_condition = self.query.key_condition_expression();
        let index_name = self.query.index_name();
        let ascending = self.query.scan_index_forward();
        // The key condition's names and values (partition, sort range) are
        // in the maps; the limit and page size are not: a cursor resumes a
        // query read in pages of any size.
        let fingerprint = Fingerprint::new("query")
            .text(&table)
            .text(E::TYPE_NAME)
            // A tenant client's cursors are its tenant's alone.
            .optional(self.client.scoped_tenant())
            .optional(index_name)
            .text(&key_condition)
            .optional(filter.as_deref())
            .text(if ascending { "asc" } else { "desc" })
            .names(rendered.names.as_ref())
            .values(rendered.values.as_ref())?;
        // A sharded query's cursor holds every shard's position: it is
        // another kind of cursor, for the same count of shards.
        let fingerprint = match self.query.shard_count() {
            Some(count) => fingerprint.text("shards").text(&count.to_string()),
            None => fingerprint,
        }
        .finish();
        let visibility = Visibility::of::<E>(&self.client, self.shown);
        let prepared = Prepared {
            client: self.client,
            table,
            entity: E::TYPE_NAME,
            source: Source::Query {
                index_name: index_name.map(str::to_owned),
                key_condition,
                ascending,
            },
            filter,
            names: rendered.names,
            values: rendered.values,
            consistent: self.consistent,
            page_size: self.page_size,
            fingerprint,
            strict: self.strict,
            visibility,
        };
        Ok((prepared, self.query, self.cursor))
    }

    fn is_sharded(&self) -> bool {
        self.query.shard_count().is_some()
    }

    /// A lazy stream of pages, one per request (for a sharded partition:
    /// the items merged before a shard needs another request, at most the
    /// page size).
    pub fn pages(self) -> impl Stream<Item = Result<Page<E>>> + Send + 'static {
        let span = self.span();
        let pages = match self.is_sharded() {
            true => sharded::pages(self.prepare_sharded()).left_stream(),
            false => paging::pages(self.prepare()).right_stream(),
        };
        crate::trace::traced_stream(span, pages)
    }

    /// A lazy stream of items across pages.
    pub fn items(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        let span = self.span();
        let items = match self.is_sharded() {
            true => sharded::items(self.prepare_sharded()).left_stream(),
            false => paging::items(self.prepare()).right_stream(),
        };
        crate::trace::traced_stream(span, items)
    }

    /// The first item, if any. Without a filter it reads one item
    /// (`Limit=1`); with one, it reads pages (DynamoDB applies `Limit`
    /// before the filter, so `Limit=1` would cost a request per item until
    /// one matches) and stops at the first match.
    pub async fn one(self) -> Result<Option<E>> {
        let span = self.span();
        let filtered = self.filter.is_some();
        let one: BoxFuture<'static, Result<Option<E>>> = if self.is_sharded() {
            let state = self.prepare_sharded();
            Box::pin(sharded::first(
                state.map(|state| state.first_only(filtered)),
            ))
        } else {
            let state = self.prepare().map(|state| state.first_only(filtered));
            Box::pin(paging::first(state))
        };
        crate::trace::traced(span, || one).await
    }

    /// Every item (up to the query's limit).
    pub async fn all(self) -> Result<Vec<E>> {
        let span = self.span();
        let all: BoxFuture<'static, Result<Vec<E>>> = match self.is_sharded() {
            true => Box::pin(sharded::all(self.prepare_sharded())),
            false => Box::pin(paging::all(self.prepare())),
        };
        crate::trace::traced(span, || all).await
    }
}

/// A query's keys, checked as DynamoDB would: a partition key that is
/// empty or over 2048 bytes, a sort key value over 1024.
fn check_query_keys<E>(query: &Query<E>) -> Result<(), ValidationError> {
    if query.is_multi_attribute() {
        return Ok(()); // native values: DynamoDB checks them
    }
    // A sharded partition: its longest shard key.
    let last_shard = query.shard_count().map(|count| query.shard(count - 1));
    let (pk_attribute, pk) = last_shard.as_ref().unwrap_or(query).partition_key();
    check_key(pk_attribute, pk, true)?;
    let Some((sk_attribute, condition)) = query.sort_condition() else {
        return Ok(());
    };
    let values: &[&String] = match condition {
        SortCondition::Between(low, high) => &[low, high],
        SortCondition::Eq(v)
        | SortCondition::BeginsWith(v)
        | SortCondition::Lt(v)
        | SortCondition::Le(v)
        | SortCondition::Gt(v)
        | SortCondition::Ge(v) => &[v],
        SortCondition::Nothing => &[],
    };
    for value in values.iter().filter(|value| !value.is_empty()) {
        check_key(sk_attribute, value, false)?;
    }
    Ok(())
}

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

/// The key condition's values as DynamoDB must see them: a number-typed key
/// attribute (`#[pk(user_id, number)]`) is compared with numbers.
fn typed_key_values<E: Readable>(
    query: &Query<E>,
    mut values: std::collections::HashMap<String, AttributeValue>,
) -> std::collections::HashMap<String, AttributeValue> {
    let numbers = E::number_key_attributes();
    let mut as_number = |placeholder: &str| {
        if let Some(AttributeValue::S(text)) = values.remove(placeholder) {
            values.insert(placeholder.to_owned(), AttributeValue::N(text));
        }
    };
    if numbers.contains(&query.partition_key().0) {
        as_number(":pk");
    }
    if let Some((sk_attribute, _)) = query.sort_condition() {
        if numbers.contains(&sk_attribute) {
            as_number(":sk1");
            as_number(":sk2");
        }
    }
    values
}

/// A sharded query's cursor holds one position per shard of the query, and
/// each lies inside its shard. The count is checked first: the positions
/// are numbered by shard, and a cursor may hold more than any shard number.
fn check_shard_positions<E: Readable>(query: &Query<E>, positions: &[ShardPosition]) -> Result<()> {
    let count = query.shard_count().unwrap_or(1);
    if positions.len() != usize::from(count) {
        return Err(Error::InvalidCursor {
            reason: "it holds another number of shards",
        });
    }
    for (shard, position) in (0..count).zip(positions) {
        if let ShardPosition::After(key) = position {
            check_cursor_key(&query.shard(shard), key)?;
        }
    }
    Ok(())
}

/// The key inside a cursor must lie inside the query: its partition, its sort
/// key range, and only the key attributes of the entity.
fn check_cursor_key<E: Readable>(query: &Query<E>, key: &Item) -> Result<()> {
    let outside = || Error::InvalidCursor {
        reason: "its key lies outside the query",
    };
    let allowed = E::key_attributes();
    if query.is_multi_attribute() {
        // The cursor's fingerprint holds the key condition; its key is checked
        // to hold key attributes only.
        return match key.keys().all(|name| allowed.contains(&name.as_str())) {
            true => Ok(()),
            false => Err(outside()),
        };
    }
    let (pk_attribute, pk) = query.partition_key();
    match key.get(pk_attribute) {
        Some(AttributeValue::S(value) | AttributeValue::N(value)) if value == pk => {}
        _ => return Err(outside()),
    }
    if let Some((sk_attribute, condition)) = query.sort_condition() {
        match key.get(sk_attribute) {
            Some(AttributeValue::S(value)) if condition.matches(value) => {}
            // A number-typed sort key: DynamoDB compares it as a number.
            Some(AttributeValue::N(_)) if E::number_key_attributes().contains(&sk_attribute) => {}
            _ => return Err(outside()),
        }
    }
    if key.keys().any(|name| !allowed.contains(&name.as_str())) {
        return Err(outside());
    }
    Ok(())
}

impl<E: Readable + Send + 'static> Operation for QueryRequest<E> {
    type Output = Page<E>;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "query",
            entity: E::TYPE_NAME,
            table: self.client.table(),
            index: self.query.index_name(),
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<Page<E>>> + Send + 'static {
        let sharded = self.is_sharded();
        async move {
            match sharded {
                true => sharded::page(self.prepare_sharded()).await,
                false => paging::page(self.prepare()).await,
            }
        }
    }
}

operation!([E: Readable + Send + 'static] QueryRequest<E> => Page<E>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cursor::encode_shards;

    #[derive(entity_core::Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "app")]
    #[pk(stage, shards = 10)]
    #[sk(id)]
    struct Job {
        stage: String,
        id: String,
    }

    /// A cursor for `query`, sealed the way the client seals one, with its
    /// secret, holding `positions`: what only a holder of the secret can
    /// make.
    fn sealed(client: &Client, query: Query<Job>, positions: &[ShardPosition]) -> String {
        let (prepared, _, _) = client.query(query).prepared().unwrap();
        let secret = &client.inner.cursor_secret;
        encode_shards(secret, &prepared.fingerprint, positions).unwrap()
    }

    /// A cursor holding another number of shard positions than the query
    /// has shards is invalid, up to the most a cursor can hold (65,535,
    /// one more than the last shard number), and nothing is sent.
    #[tokio::test]
    async fn a_cursor_with_another_number_of_shards_is_invalid() {
        // Nothing listens there: a request sent would fail otherwise.
        let client = Client::local("http://127.0.0.1:9", "jobs");
        for count in [0, 9, 11, usize::from(u16::MAX)] {
            let positions = vec![ShardPosition::NotStarted; count];
            let cursor = sealed(&client, Job::primary("open").into(), &positions);
            let read = client.query(Job::primary("open")).cursor(cursor).await;
            assert!(
                matches!(
                    read,
                    Err(Error::InvalidCursor {
                        reason: "it holds another number of shards"
                    })
                ),
                "{count} positions: {read:?}"
            );
        }
    }
}
