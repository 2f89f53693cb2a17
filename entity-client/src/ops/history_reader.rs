//! `client.history(key)`: the snapshots of [`super::history`] read back,
//! newest first.

use super::history::{snapshot_identity, snapshot_sk, VERSION_DIGITS};
use super::managed::version_of;
use super::operation::{operation, run, Operation};
use crate::error::{from_sdk, Result};
use crate::scoping::{Reaches, Scope, ScopeKey};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::lifecycle::HistoryModel;
use entity_core::{Entity, Item, PrimaryKey};
use futures::stream::{self, Stream, TryStreamExt};
use std::future::Future;

/// The history of one item: its snapshots, newest first. Each read first
/// gets the stored item's version (a GetItem): only snapshots up to it are
/// the item's own. An item deleted for good (a hard `delete`, a `purge`)
/// leaves its snapshots, read while no item is at the key; a new item
/// there starts again at version 1, and reads show only its own.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app", history)] #[pk(id)] #[sk()] struct Doc { id: String, #[entity(version)] version: u64 }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let versions: Vec<Doc> = client.history(Doc::key("d1")).all().await?;   // newest first
/// let second: Option<Doc> = client.history(Doc::key("d1")).version(2).await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct History<E> {
    client: Client,
    key: PrimaryKey<E>,
    consistent: bool,
}

impl Client {
    /// `history` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn history_any<E: Entity>(&self, key: PrimaryKey<E>) -> History<E> {
        History {
            client: self.clone(),
            key,
            consistent: false,
        }
    }
}

impl<S: Scope> Client<S> {
    /// The version history of the item with this key (`#[entity(history)]`).
    pub fn history<E: Entity>(&self, key: impl ScopeKey<E, S>) -> History<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>().history_any(key.complete(&self.scope))
    }
}

impl<E: Entity + Send + 'static> History<E> {
    /// Strongly consistent reads.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// The snapshots, newest first, as a lazy stream (the item's version,
    /// then one Query per page), in the operation's span.
    pub fn items(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        let span = self.span();
        crate::trace::traced_stream(span, self.snapshots())
    }

    /// Every snapshot, newest first (what `.await` returns).
    pub async fn all(self) -> Result<Vec<E>> {
        run(self).await
    }

    /// The newest snapshot.
    pub async fn latest(self) -> Result<Option<E>> {
        let span = self.span();
        let latest = async move {
            let items = self.snapshots();
            futures::pin_mut!(items);
            items.try_next().await
        };
        crate::trace::traced(span, || latest).await
    }

    /// The snapshot of version `version` (a GetItem of the item's version,
    /// then one of the snapshot).
    pub async fn version(self, version: u64) -> Result<Option<E>> {
        let span = self.span();
        crate::trace::traced(span, || self.snapshot(version)).await
    }

    /// The snapshots, newest first, outside any span.
    fn snapshots(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        /// Where the read is: not started, at a page, or done.
        enum At<E> {
            Start(History<E>),
            Page(History<E>, Range, Item),
            Done,
        }
        stream::try_unfold(At::Start(self), |at| async move {
            let (history, range, start) = match at {
                At::Done => return Ok::<_, crate::Error>(None),
                At::Start(history) => {
                    let range = history.range().await?;
                    (history, range, None)
                }
                At::Page(history, range, start) => (history, range, Some(start)),
            };
            let (items, next) = history.page(&range, start).await?;
            let at = match next {
                Some(next) => At::Page(history, range, next),
                None => At::Done,
            };
            let items: Vec<Result<E>> = items.into_iter().map(Ok).collect();
            Ok(Some((stream::iter(items), at)))
        })
        .try_flatten()
    }

    /// The sort keys the item's own snapshots lie between: from the first
    /// version to the stored item's (live or soft-deleted). Snapshots above
    /// it are an earlier item's at this key, left by a hard delete or a
    /// purge: a new item starts its history again at version 1, writing
    /// over that item's snapshots as it goes. With no item stored, every
    /// snapshot at the key is read (the deleted item's history).
    async fn range(&self) -> Result<Range> {
        let history = self.model()?;
        let (_, sk) = self.base_sk()?;
        let upto = match E::MODEL.managed.version {
            Some(version) => {
                let stored = (self.client)
                    .get_raw(E::MODEL.name, self.key.to_item(), self.consistent)
                    .await?;
                stored.map(|item| snapshot_sk(&history, &sk, version_of(&item, version)))
            }
            None => None,
        };
        Ok(Range {
            prefix: format!("{sk}{}", history.separator),
            upto,
        })
    }

    async fn snapshot(self, version: u64) -> Result<Option<E>> {
        let (sk_attribute, sk) = self.base_sk()?;
        let history = self.model()?;
        let wanted = snapshot_sk(&history, &sk, version);
        // Above the stored item's version, a snapshot is an earlier item's.
        if (self.range().await?.upto).is_some_and(|upto| wanted > upto) {
            return Ok(None);
        }
        let mut key = self.key.to_item();
        key.insert(sk_attribute.to_owned(), AttributeValue::S(wanted));
        let item = (self.client)
            .get_raw(E::MODEL.name, key, self.consistent)
            .await?;
        let item = item.filter(|item| !self.expired(item));
        item.map(|item| self.read(item)).transpose()
    }

    fn model(&self) -> Result<HistoryModel> {
        E::MODEL.lifecycle.history.ok_or_else(|| {
            crate::ValidationError::InvalidRequest(format!(
                "{} keeps no history: declare #[entity(history)]",
                E::MODEL.name
            ))
            .into()
        })
    }

    fn base_sk(&self) -> Result<(&'static str, String)> {
        self.key.sk.clone().ok_or_else(|| {
            crate::ValidationError::InvalidRequest("history needs a table sort key".into()).into()
        })
    }

    /// One Query page of snapshots: those whose sort key is the prefix and
    /// exactly ten digits (a longer sort key that happens to begin with the
    /// prefix is another item's).
    async fn page(&self, range: &Range, start: Option<Item>) -> Result<(Vec<E>, Option<Item>)> {
        let (sk_attribute, _) = self.base_sk()?;
        let prefix = range.prefix.as_str();
        let mut query = (self.client.inner.sdk.query())
            .table_name(self.client.checked_table()?)
            .expression_attribute_names("#pk", self.key.pk_attribute)
            .expression_attribute_names("#sk", sk_attribute)
            .expression_attribute_values(":pk", self.key.to_item()[self.key.pk_attribute].clone())
            .expression_attribute_values(":prefix", AttributeValue::S(prefix.to_owned()));
        query = match &range.upto {
            Some(upto) => query
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :prefix AND :upto")
                .expression_attribute_values(":upto", AttributeValue::S(upto.clone())),
            None => query.key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)"),
        };
        let output = query
            .scan_index_forward(false)
            .consistent_read(self.consistent)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| from_sdk("Query", E::MODEL.name, e).in_table(self.client.table()))?;
        let identity = snapshot_identity::<E>();
        let mut items = Vec::new();
        for item in output.items.unwrap_or_default() {
            let is_snapshot = matches!(
                item.get(E::MODEL.identity_attribute),
                Some(AttributeValue::S(id)) if *id == identity
            );
            let suffix = match item.get(sk_attribute) {
                Some(AttributeValue::S(sk)) => sk.strip_prefix(prefix),
                _ => None,
            };
            let versioned = suffix.is_some_and(|s| {
                s.len() == VERSION_DIGITS && s.bytes().all(|b| b.is_ascii_digit())
            });
            // A snapshot past its TTL is one DynamoDB has not deleted yet:
            // hidden, as every read hides an expired item.
            if is_snapshot && versioned && !self.expired(&item) {
                items.push(self.read(item)?);
            }
        }
        Ok((items, output.last_evaluated_key))
    }

    /// Whether a snapshot's TTL attribute holds a time at or before now.
    fn expired(&self, item: &Item) -> bool {
        let now = super::visibility::epoch_now(&self.client);
        let ttl = E::MODEL
            .lifecycle
            .ttl
            .and_then(|ttl| item.get(ttl.attribute));
        matches!(ttl, Some(AttributeValue::N(at))
            if at.split('.').next().and_then(|s| s.parse::<i64>().ok()).is_some_and(|at| at <= now))
    }

    /// A snapshot read as the entity: its identity and sort key as the live
    /// item's, and the version's own TTL where the snapshot's expiry took
    /// its attribute.
    fn read(&self, mut item: Item) -> Result<E> {
        if let (Some(own), Some(ttl)) = (
            item.remove(super::history::VERSION_TTL),
            E::MODEL.lifecycle.ttl,
        ) {
            match own {
                AttributeValue::N(_) => item.insert(ttl.attribute.to_owned(), own),
                _ => item.remove(ttl.attribute),
            };
        }
        item.insert(
            E::MODEL.identity_attribute.to_owned(),
            AttributeValue::S(E::MODEL.name.to_owned()),
        );
        if let Some((attribute, sk)) = &self.key.sk {
            item.insert((*attribute).to_owned(), AttributeValue::S(sk.clone()));
        }
        Ok(E::from_item(item)?)
    }
}

/// The sort keys a history read covers: those of its snapshots (`prefix`
/// and ten digits), up to `upto` when an item is stored.
struct Range {
    prefix: String,
    upto: Option<String>,
}

impl<E: Entity + Send + 'static> Operation for History<E> {
    type Output = Vec<E>;
    const READS_FIRST: bool = true;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "history",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<Vec<E>>> + Send + 'static {
        self.snapshots().try_collect()
    }
}

operation!([E: Entity + Send + 'static] History<E> => Vec<E>);
