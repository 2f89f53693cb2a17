//! One stored item rewritten as its entity's current definition: read
//! through it (and its `upgrade_from` chain), its stored keys, version or
//! identity found stale, and rewritten under a condition that no
//! concurrent write can slip past. What a migration does to every item,
//! and an update to an item of an older entity version before it changes
//! it.

use crate::error::{from_sdk, Error, Result};
use crate::limits::check_item;
use crate::ops::lifecycle::{holds_unique, keep_deleted};
use crate::ops::unique::{Backfilled, UniqueConflict};
use crate::ops::{table_key, Conditional};
use crate::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem};
use entity_core::{DecodeError, Entity, Item};
use std::collections::HashMap;

/// DynamoDB's limit on a condition expression's length.
const MAX_EXPRESSION_BYTES: usize = 4096;

/// An item the current definition (and its `upgrade_from` chain) cannot
/// read. The migration leaves it as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct UnreadableItem {
    /// The item's table key.
    pub key: Item,
    /// Why it cannot be read.
    pub error: DecodeError,
}

/// What happened to one item.
pub(crate) enum Outcome {
    /// Rewritten (or, in a dry run, would be).
    Rewritten,
    /// Its keys, version and identity are what the current definition
    /// composes: not written.
    UpToDate,
    /// Changed between the read and the write: not written.
    SkippedConcurrent,
    /// Not readable as the current entity: not written.
    Unreadable(UnreadableItem),
}

/// Migrates one stored item of `E`, and with `backfill` makes sure its
/// unique sentinels exist.
pub(crate) async fn migrate_item<E: Entity>(
    client: &Client,
    table: &str,
    stored: Item,
    dry_run: bool,
    backfill: bool,
) -> Result<(Outcome, Backfilled)> {
    let entity = match E::from_item(stored.clone()) {
        Ok(entity) => entity,
        Err(error) => {
            let key = table_key::<E>(&stored);
            let outcome = Outcome::Unreadable(UnreadableItem { key, error });
            return Ok((outcome, Backfilled::default()));
        }
    };
    client.check_encrypts(E::MODEL)?;
    let mut current = entity.to_item()?;
    // A soft-deleted item stays deleted: out of reads and indexes.
    keep_deleted::<E>(&stored, &mut current);
    let values = entity.unique_values();
    drop(entity);
    let (outcome, conflicts) = rewrite::<E>(client, table, &stored, &current, dry_run).await?;
    // A moved item's sentinels move with it (its conflicts come back from
    // the move): the backfill is for items that stay.
    let stays = table_key::<E>(&stored) == table_key::<E>(&current);
    let mut backfilled = match outcome {
        Outcome::Rewritten | Outcome::UpToDate
            if backfill && stays && holds_unique::<E>(client, &stored) =>
        {
            crate::ops::unique::backfill::<E>(client, values, &current, &stored, dry_run).await?
        }
        _ => Backfilled::default(),
    };
    backfilled.conflicts.extend(conflicts);
    Ok((outcome, backfilled))
}

/// Rewrites the stored item as `current` if its keys, version or identity
/// are stale.
async fn rewrite<E: Entity>(
    client: &Client,
    table: &str,
    stored: &Item,
    current: &Item,
    dry_run: bool,
) -> Result<(Outcome, Vec<UniqueConflict>)> {
    if !is_stale::<E>(stored, current) {
        return Ok((Outcome::UpToDate, Vec::new()));
    }
    if dry_run {
        return Ok((Outcome::Rewritten, Vec::new()));
    }
    let (stored, current) = (stored, current.clone());
    check_item(E::MODEL, &current)?;
    let unchanged = Unchanged::of::<E>(stored, &current);
    let written = if table_key::<E>(stored) == table_key::<E>(&current) {
        put::<E>(client, table, current, unchanged)
            .await
            .map(|()| Vec::new())
    } else if E::MODEL.lifecycle.history.is_some()
        && (client.get_raw(E::MODEL.name, table_key::<E>(&current), true))
            .await?
            .is_some()
    {
        // An item at the new key fails the move: checked first for an
        // entity whose snapshots are copied there before it moves (they
        // would write over that item's own).
        return Ok((Outcome::SkippedConcurrent, Vec::new()));
    } else {
        move_item::<E>(client, table, stored, current, unchanged).await
    };
    match written {
        Ok(conflicts) => Ok((Outcome::Rewritten, conflicts)),
        Err(error) if error.is_condition_failed() => Ok((Outcome::SkippedConcurrent, Vec::new())),
        Err(error) => Err(error),
    }
}

/// The attributes a rewrite exists to fix: every key attribute the current
/// definition writes, the version and the identity.
fn is_stale<E: Entity>(stored: &Item, current: &Item) -> bool {
    let model = E::MODEL;
    model
        .key_attributes()
        .into_iter()
        .chain([model.version_attribute, model.identity_attribute])
        .any(|attribute| stored.get(attribute) != current.get(attribute))
}

/// The condition "the stored item is still as it was read", rendered.
///
/// Every stored attribute must hold the value read, and every attribute the
/// current definition may write that was absent must still be absent: so a
/// concurrent put, update or delete through any definition fails it. When
/// that expression would pass DynamoDB's 4 KB limit (an item of hundreds of
/// attributes), it narrows to the stored version, identity and every key
/// attribute, which a write through the current definition always changes
/// on a stale item unless it only updates non-key fields.
struct Unchanged {
    expression: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Unchanged {
    fn of<E: Entity>(stored: &Item, current: &Item) -> Self {
        let model = E::MODEL;
        let guarded: Vec<&str> = model
            .key_attributes()
            .into_iter()
            .chain([model.version_attribute, model.identity_attribute])
            .collect();
        let owned = guarded
            .iter()
            .copied()
            .chain(model.fields.iter().map(|field| field.attribute))
            .chain(stored.keys().map(String::as_str))
            .chain(current.keys().map(String::as_str));
        let whole = Self::over(stored, owned);
        if whole.expression.len() <= MAX_EXPRESSION_BYTES {
            return whole;
        }
        Self::over(stored, guarded.into_iter())
    }

    /// Each of `attributes` (repeats ignored) equal to its stored value, or
    /// absent if it was.
    fn over<'a>(stored: &Item, attributes: impl Iterator<Item = &'a str>) -> Self {
        let mut out = Self {
            expression: String::new(),
            names: HashMap::new(),
            values: HashMap::new(),
        };
        let mut seen = std::collections::HashSet::new();
        for attribute in attributes.filter(|a| seen.insert(*a)) {
            let i = out.names.len();
            let name = format!("#m{i}");
            if !out.expression.is_empty() {
                out.expression.push_str(" AND ");
            }
            match stored.get(attribute) {
                Some(value) => {
                    let placeholder = format!(":m{i}");
                    out.expression.push_str(&format!("{name} = {placeholder}"));
                    out.values.insert(placeholder, value.clone());
                }
                None => out
                    .expression
                    .push_str(&format!("attribute_not_exists({name})")),
            }
            out.names.insert(name, attribute.to_owned());
        }
        out
    }

    fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}

/// Replaces the item in place.
async fn put<E: Entity>(
    client: &Client,
    table: &str,
    item: Item,
    unchanged: Unchanged,
) -> Result<()> {
    client
        .inner
        .sdk
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .condition_expression(&unchanged.expression)
        .set_expression_attribute_values(unchanged.values())
        .set_expression_attribute_names(Some(unchanged.names))
        .send()
        .await
        .map_err(|e| from_sdk("PutItem", E::MODEL.name, e))?;
    Ok(())
}

/// Writes the item under its new table key and deletes the old one, in one
/// transaction: the new key must be free, the old item unchanged. Its
/// unique sentinels move along; one that another item holds (two stored
/// items share the value) is left to that item and reported, and the item
/// moves without it.
async fn move_item<E: Entity>(
    client: &Client,
    table: &str,
    stored: &Item,
    current: Item,
    unchanged: Unchanged,
) -> Result<Vec<UniqueConflict>> {
    let build = |e: aws_sdk_dynamodb::error::BuildError| {
        Error::from(crate::ValidationError::InvalidRequest(e.to_string()))
    };
    let pk = E::MODEL.primary.pk.attribute;
    // Unique sentinels name the item's key: they move with it (an item
    // that holds no values, soft-deleted or expired, has none to move).
    let mut sentinels = if holds_unique::<E>(client, stored) {
        crate::ops::unique::repoint::<E>(client, stored, &current)?
    } else {
        Vec::new()
    };
    let mut conflicts = Vec::new();
    let new_key = table_key::<E>(&current);
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(current))
        .condition_expression("attribute_not_exists(#pk)")
        .expression_attribute_names("#pk", pk)
        .build()
        .map_err(build)?;
    let values = unchanged.values();
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(table_key::<E>(stored)))
        .condition_expression(unchanged.expression)
        .set_expression_attribute_names(Some(unchanged.names))
        .set_expression_attribute_values(values)
        .build()
        .map_err(build)?;
    let moves = [
        TransactWriteItem::builder().put(put).build(),
        TransactWriteItem::builder().delete(delete).build(),
    ];
    // A history entity's snapshots go with it: copied under the new key
    // first (a move that then fails leaves copies a later run writes
    // again), deleted under the old one once it moved.
    let snapshots = Snapshots::<E>::of(client, table, stored, &new_key).await?;
    snapshots.copy(client, table).await?;
    loop {
        let sent = client
            .inner
            .sdk
            .transact_write_items()
            .set_transact_items(Some(
                moves
                    .iter()
                    .cloned()
                    .chain(sentinels.iter().map(|sentinel| sentinel.item.clone()))
                    .collect(),
            ))
            .send()
            .await
            .map_err(|e| from_sdk("TransactWriteItems", E::MODEL.name, e));
        let reasons = match sent {
            Ok(_) => {
                snapshots.delete_old(client, table).await?;
                return Ok(conflicts);
            }
            Err(Error::TransactionCanceled { reasons, source }) => (reasons, source),
            Err(other) => return Err(other),
        };
        // Sentinels another item holds: reported, and left out of a retry.
        let taken: Vec<usize> = reasons
            .0
            .iter()
            .filter(|r| r.is_condition_failed() && r.index >= moves.len())
            .map(|r| r.index - moves.len())
            .collect();
        let moved_or_raced = reasons
            .0
            .iter()
            .any(|r| r.is_condition_failed() && r.index < moves.len());
        if taken.is_empty() || moved_or_raced {
            return Err(Error::TransactionCanceled {
                reasons: reasons.0,
                source: reasons.1,
            });
        }
        let mut kept = Vec::new();
        for (i, sentinel) in sentinels.into_iter().enumerate() {
            if !taken.contains(&i) {
                kept.push(sentinel);
                continue;
            }
            let owner = reasons
                .0
                .iter()
                .find(|r| r.index == i + moves.len())
                .and_then(|r| r.item.clone())
                .and_then(crate::ops::unique::owner_key::<E>);
            if let Some((constraint, value)) = sentinel.violation {
                conflicts.push(UniqueConflict {
                    constraint,
                    value,
                    key: new_key.clone(),
                    owner,
                });
            }
        }
        sentinels = kept;
    }
}

/// Rewrites one stored item of an older entity version as the current one
/// (read through its `upgrade_from` chain), as `migrate` does: what an
/// update of it does first, so that it changes the entity the item reads
/// as. An item the chain cannot read is its decode error; one changed
/// meanwhile is left to the update's next attempt.
pub(crate) async fn upgrade_in_place<E: Entity>(client: &Client, stored: Item) -> Result<()> {
    let table = client.checked_table()?;
    let (outcome, _) = migrate_item::<E>(client, table, stored, false, false).await?;
    match outcome {
        Outcome::Unreadable(unreadable) => Err(unreadable.error.into()),
        _ => Ok(()),
    }
}

/// A moved history entity's snapshots: each one under the old key, and its
/// copy under the new key (the new sort key and the same version suffix).
struct Snapshots<E> {
    moves: Vec<(Item, Item)>,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: Entity> Snapshots<E> {
    /// The snapshots stored under `stored`'s key (read strongly
    /// consistent), to move under `new_key`. None for an entity without
    /// history.
    async fn of(client: &Client, table: &str, stored: &Item, new_key: &Item) -> Result<Self> {
        let mut moves = Vec::new();
        let model = E::MODEL;
        let (Some(history), Some(sk)) = (&model.lifecycle.history, model.primary.sk) else {
            return Ok(Self::moving(moves));
        };
        let (pk, sk) = (model.primary.pk.attribute, sk.attribute);
        let text = |item: &Item, attribute: &str| match item.get(attribute) {
            Some(AttributeValue::S(text)) => Some(text.clone()),
            _ => None,
        };
        let (Some(old_sk), Some(new_sk)) = (text(stored, sk), text(new_key, sk)) else {
            return Ok(Self::moving(moves));
        };
        let prefix = format!("{old_sk}{}", history.separator);
        let identity = AttributeValue::S(crate::ops::history::snapshot_identity::<E>());
        let mut start = None;
        loop {
            let page = client
                .inner
                .sdk
                .query()
                .table_name(table)
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)")
                .expression_attribute_names("#pk", pk)
                .expression_attribute_names("#sk", sk)
                .set_expression_attribute_values(Some(HashMap::from([
                    (
                        ":pk".to_owned(),
                        stored
                            .get(pk)
                            .cloned()
                            .unwrap_or(AttributeValue::Null(true)),
                    ),
                    (":prefix".to_owned(), AttributeValue::S(prefix.clone())),
                ])))
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| from_sdk("Query", model.name, e))?;
            for snapshot in page.items.unwrap_or_default() {
                let Some(suffix) =
                    text(&snapshot, sk).and_then(|s| s.strip_prefix(&old_sk).map(str::to_owned))
                else {
                    continue;
                };
                // Exactly the separator and ten digits: a longer sort key
                // that begins with the prefix is another item's.
                let version = suffix.strip_prefix(history.separator);
                let of_this_item = version.is_some_and(|digits| {
                    digits.len() == crate::ops::history::VERSION_DIGITS
                        && digits.bytes().all(|b| b.is_ascii_digit())
                });
                if snapshot.get(model.identity_attribute) != Some(&identity) || !of_this_item {
                    continue;
                }
                let old_key = table_key::<E>(&snapshot);
                let mut copy = snapshot;
                copy.extend(new_key.clone());
                copy.insert(
                    sk.to_owned(),
                    AttributeValue::S(format!("{new_sk}{suffix}")),
                );
                moves.push((old_key, copy));
            }
            match page.last_evaluated_key {
                Some(next) => start = Some(next),
                None => break,
            }
        }
        Ok(Self::moving(moves))
    }

    fn moving(moves: Vec<(Item, Item)>) -> Self {
        Self {
            moves,
            entity: std::marker::PhantomData,
        }
    }

    /// Writes the copies, each where no item is or a snapshot of the
    /// entity is (never over another entity's item).
    async fn copy(&self, client: &Client, table: &str) -> Result<()> {
        let slot = Self::slot()?;
        for (_, copy) in &self.moves {
            client
                .inner
                .sdk
                .put_item()
                .table_name(table)
                .set_item(Some(copy.clone()))
                .expressions(slot.clone())
                .send()
                .await
                .map_err(|e| from_sdk("PutItem", E::MODEL.name, e))?;
        }
        Ok(())
    }

    /// Deletes the snapshots under the old key (only snapshots; one that
    /// is no longer there, or no longer a snapshot, is left as it is: the
    /// item moved all the same).
    async fn delete_old(&self, client: &Client, table: &str) -> Result<()> {
        let slot = Self::slot()?;
        for (old_key, _) in &self.moves {
            let deleted = client
                .inner
                .sdk
                .delete_item()
                .table_name(table)
                .set_key(Some(old_key.clone()))
                .expressions(slot.clone())
                .send()
                .await
                .map_err(|e| from_sdk("DeleteItem", E::MODEL.name, e));
            match deleted {
                Err(e) if e.is_condition_failed() => {}
                other => drop(other?),
            }
        }
        Ok(())
    }

    /// The condition of every snapshot write, as history writes it: the
    /// slot is free or holds a snapshot of the entity.
    fn slot() -> Result<crate::ops::Expressions> {
        let slot = crate::ops::history::snapshot_slot::<E>();
        crate::ops::condition_only(Some(&slot), "history snapshot")
    }
}
