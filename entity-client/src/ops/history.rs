//! Version history (`#[entity(history)]`, seed 004's `SK@n`): every write of
//! the entity also stores a snapshot of the version it writes, at
//! `<sk><separator><version>` in the same partition and the same
//! transaction; `client.history(key)` reads them back, newest first.
//!
//! A snapshot is the item as written, with its identity attribute set to
//! `<Entity>#history` (so no entity or collection query reads it as the
//! entity) and without its composed secondary index keys (so it is in no
//! index). The version is zero-padded to ten digits, so snapshots sort by
//! version: `ORDER#01HX…@0000000010` after `…@0000000009`.

use super::managed::epoch_seconds;
use super::managed::version_of;
use super::operation::{operation, run, Operation};
use super::rmw::{read_modify_write, Current, Start, Step};
use super::single::Companion;
use super::Conditional;
use crate::error::{from_sdk, Result};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem};
use entity_core::lifecycle::HistoryModel;
use entity_core::{Entity, Item, PrimaryKey};
use futures::stream::{self, Stream, TryStreamExt};
use std::future::Future;
use std::time::Duration;

/// The digits a snapshot's version is padded to.
const VERSION_DIGITS: usize = 10;

/// What a snapshot's identity attribute holds.
fn snapshot_identity<E: Entity>() -> String {
    format!("{}#history", E::MODEL.name)
}

/// The sort key of version `version`'s snapshot of the item whose sort key
/// is `sk`.
fn snapshot_sk(history: &HistoryModel, sk: &str, version: u64) -> String {
    format!(
        "{sk}{}{version:0width$}",
        history.separator,
        width = VERSION_DIGITS
    )
}

/// The table's sort key attribute and `item`'s value of it.
fn sort_key<E: Entity>(item: &Item) -> Option<(&'static str, String)> {
    let attribute = E::MODEL.primary.sk?.attribute;
    match item.get(attribute) {
        Some(AttributeValue::S(sk)) => Some((attribute, sk.clone())),
        _ => None,
    }
}

/// The snapshot writes that go with writing `item` (the entity as the
/// write leaves it): a Put of its version's snapshot, and the Delete of the
/// snapshot that falls out of `keep`. None for an entity without history.
pub(crate) fn companions<E: Entity>(client: &Client, item: &Item) -> Result<Vec<Companion>> {
    let (Some(history), Some(version)) = (E::MODEL.lifecycle.history, E::MODEL.managed.version)
    else {
        return Ok(Vec::new());
    };
    let Some((sk_attribute, sk)) = sort_key::<E>(item) else {
        return Ok(Vec::new());
    };
    let table = client.checked_table()?;
    let version = version_of(item, version);
    let mut snapshot = item.clone();
    for attribute in super::lifecycle::secondary_key_attributes::<E>() {
        snapshot.remove(attribute);
    }
    snapshot.insert(
        E::MODEL.identity_attribute.to_owned(),
        AttributeValue::S(snapshot_identity::<E>()),
    );
    snapshot.insert(
        sk_attribute.to_owned(),
        AttributeValue::S(snapshot_sk(&history, &sk, version)),
    );
    if let (Some(after), Some(ttl)) = (history.expire_after, E::MODEL.lifecycle.ttl) {
        let at = client.now() + Duration::from_secs(after);
        snapshot.insert(ttl.attribute.to_owned(), epoch_seconds(at));
    }
    let key_of = |snapshot: &Item| -> Item {
        snapshot
            .iter()
            .filter(|(name, _)| super::is_table_key::<E>(name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    };
    let invalid = |e: aws_sdk_dynamodb::error::BuildError| {
        crate::Error::from(crate::ValidationError::InvalidRequest(e.to_string()))
    };
    // A snapshot's slot holds a snapshot of this entity or nothing: an item
    // of another entity whose key format spells the same key (another
    // tenant's, `ORG#{t}` / `ORG#X{t}`) is never written over or deleted;
    // the write fails with that item as the one in the way.
    let slot = super::condition_only(Some(&snapshot_slot::<E>()), "history snapshot")?;
    let mut out = vec![Companion {
        key: key_of(&snapshot),
        item: TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(table)
                    .set_item(Some(snapshot.clone()))
                    .expressions(slot.clone())
                    .build()
                    .map_err(invalid)?,
            )
            .build(),
        violation: None,
        slot: true,
    }];
    if let Some(gone) = history
        .keep
        .and_then(|keep| version.checked_sub(u64::from(keep)))
        .filter(|gone| *gone > 0)
    {
        let mut key = key_of(&snapshot);
        key.insert(
            sk_attribute.to_owned(),
            AttributeValue::S(snapshot_sk(&history, &sk, gone)),
        );
        out.push(Companion {
            key: key.clone(),
            item: TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name(table)
                        .set_key(Some(key))
                        .expressions(slot)
                        .build()
                        .map_err(invalid)?,
                )
                .build(),
            violation: None,
            slot: true,
        });
    }
    Ok(out)
}

/// `attribute_not_exists(<pk>) OR <identity> = "<Entity>#history"`: the
/// condition of every snapshot write and delete.
fn snapshot_slot<E: Entity>() -> entity_core::expr::Condition<E> {
    let free = entity_core::__private::condition_not_exists(E::MODEL.primary.pk.attribute);
    let snapshot = entity_core::__private::condition_equals(
        E::MODEL.identity_attribute,
        AttributeValue::S(snapshot_identity::<E>()),
    );
    free.or(snapshot)
}

/// An update of an entity that keeps history: the snapshot of the version
/// it writes goes in the same transaction, so the item it leaves must be
/// known. The item is read (strongly consistent), the update applied to it
/// in memory, and the write conditioned on the version read; another write
/// in between is read again and retried (unless the caller expects a
/// version: then it is a `VersionConflict`).
pub(crate) struct HistoryUpdate<'a, E> {
    pub client: &'a Client,
    pub key: &'a PrimaryKey<E>,
    /// The update as sent, managed fields stamped.
    pub completed: entity_core::expr::Update<E>,
    pub condition: Option<entity_core::expr::Condition<E>>,
    pub expected: Option<u64>,
    pub must_exist: bool,
    pub token: Option<String>,
    /// A tenant client's guard against writing over another entity's item.
    pub identity: Option<super::single::IdentityGuard>,
}

impl<E: Entity> HistoryUpdate<'_, E> {
    /// Sends it with the snapshot and the `extra` writes the stored item
    /// calls for; the item before and after.
    pub(crate) async fn send(
        self,
        extra: impl Fn(&Current<E>) -> Result<Vec<Companion>>,
    ) -> Result<(Option<Item>, Item)> {
        let entity = E::MODEL.name;
        let version = E::MODEL
            .managed
            .version
            .unwrap_or(E::MODEL.version_attribute);
        let mut read = 0;
        let start = Start::Read(self.key, self.identity);
        let sent = read_modify_write(self.client, start, |current| {
            if self.must_exist && current.item.is_none() {
                return Err(crate::Error::NotFound { entity });
            }
            read = current
                .item
                .as_ref()
                .map_or(0, |item| version_of(item, version));
            if let Some(expected) = self.expected.filter(|expected| *expected != read) {
                return Err(crate::Error::VersionConflict {
                    entity,
                    expected,
                    found: current.item.as_ref().map(|_| read),
                    current: current.item.clone().map(Box::new),
                });
            }
            let mut new = current.item.clone().unwrap_or_else(|| self.key.to_item());
            self.completed
                .apply_to(&mut new)
                .map_err(|source| crate::ValidationError::Value {
                    context: "history snapshot",
                    source,
                })?;
            let condition = super::and(
                self.condition.clone(),
                Some(super::managed::version_condition::<E>(version, read)),
            );
            let rendered = super::render::render_completed(self.completed.clone(), condition)?;
            let mut write = super::single::SingleWrite::new(
                entity,
                super::single::Action::Update {
                    key: self.key.to_item(),
                    expression: rendered.expression,
                },
                rendered.expressions,
            );
            write.token = self.token.clone();
            write.identity = self.identity;
            write.companions = companions::<E>(self.client, &new)?;
            write.companions.extend(extra(current)?);
            Ok(Step::Send(write, (current.item.clone(), new)))
        })
        .await;
        match sent {
            Ok((before_after, _)) => Ok(before_after),
            Err(e) => Err(super::managed::version_conflict::<E>(e, Some(read))),
        }
    }
}

/// The history of one item: its snapshots, newest first.
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
    /// The version history of the item with this key (`#[entity(history)]`).
    pub fn history<E: Entity + entity_core::NotTenant>(&self, key: PrimaryKey<E>) -> History<E> {
        self.history_any(key)
    }

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

impl<E: Entity + Send + 'static> History<E> {
    /// Strongly consistent reads.
    pub fn consistent_read(mut self, consistent: bool) -> Self {
        self.consistent = consistent;
        self
    }

    /// The snapshots, newest first, as a lazy stream (one Query per page),
    /// in the operation's span.
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
        crate::trace::traced(span, latest).await
    }

    /// The snapshot of version `version` (a GetItem).
    pub async fn version(self, version: u64) -> Result<Option<E>> {
        let span = self.span();
        crate::trace::traced(span, self.snapshot(version)).await
    }

    /// The snapshots, newest first, outside any span.
    fn snapshots(self) -> impl Stream<Item = Result<E>> + Send + 'static {
        let start = self.prefix().map(|prefix| (self, prefix, None, false));
        stream::try_unfold(Some(start), |state| async move {
            let Some(state) = state else {
                return Ok::<_, crate::Error>(None);
            };
            let (history, prefix, start, done) = state?;
            if done {
                return Ok(None);
            }
            let (items, next) = history.page(&prefix, start).await?;
            let done = next.is_none();
            let items: Vec<Result<E>> = items.into_iter().map(Ok).collect();
            Ok(Some((
                stream::iter(items),
                Some(Ok((history, prefix, next, done))),
            )))
        })
        .try_flatten()
    }

    /// The snapshot of one version, outside any span.
    async fn snapshot(self, version: u64) -> Result<Option<E>> {
        let (sk_attribute, sk) = self.base_sk()?;
        let history = self.model()?;
        let mut key = self.key.to_item();
        key.insert(
            sk_attribute.to_owned(),
            AttributeValue::S(snapshot_sk(&history, &sk, version)),
        );
        let item = (self.client)
            .get_raw(E::MODEL.name, key, self.consistent)
            .await?;
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

    /// The sort key prefix every snapshot of the item starts with.
    fn prefix(&self) -> Result<String> {
        let history = self.model()?;
        let (_, sk) = self.base_sk()?;
        Ok(format!("{sk}{}", history.separator))
    }

    /// One Query page of snapshots: those whose sort key is the prefix and
    /// exactly ten digits (a longer sort key that happens to begin with the
    /// prefix is another item's).
    async fn page(&self, prefix: &str, start: Option<Item>) -> Result<(Vec<E>, Option<Item>)> {
        let (sk_attribute, _) = self.base_sk()?;
        let output = self
            .client
            .inner
            .sdk
            .query()
            .table_name(self.client.checked_table()?)
            .key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)")
            .expression_attribute_names("#pk", self.key.pk_attribute)
            .expression_attribute_names("#sk", sk_attribute)
            .expression_attribute_values(":pk", self.key.to_item()[self.key.pk_attribute].clone())
            .expression_attribute_values(":prefix", AttributeValue::S(prefix.to_owned()))
            .scan_index_forward(false)
            .consistent_read(self.consistent)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| from_sdk("Query", E::MODEL.name, e))?;
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
            if is_snapshot && versioned {
                items.push(self.read(item)?);
            }
        }
        Ok((items, output.last_evaluated_key))
    }

    /// A snapshot read as the entity: its identity and sort key as the live
    /// item's.
    fn read(&self, mut item: Item) -> Result<E> {
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

impl<E: Entity + Send + 'static> Operation for History<E> {
    type Output = Vec<E>;
    const WRITES: bool = false;

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
