//! The fields the client writes itself, on every write path: generated ids,
//! `created_at`, `updated_at` and the optimistic-lock version.
//!
//! A whole-entity write is stamped on its item, which is then read back as
//! the entity and written out again: keys composed of a stamped field (a
//! feed sorted by `created_at`, a generated id in the partition key) are
//! composed from the stamped value, and the caller gets the stored entity.

use super::and;
use crate::error::{Error, Result};
use crate::keys::KeyRef;
use crate::limits::{check_written, checked_as_written};
use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::expr::{Condition, Update};
use entity_core::lifecycle::SoftDeleteModel;
use entity_core::managed::{IdKind, TimestampModel};
use entity_core::{Entity, EntityModel, Item, ItemWriter, PrimaryKey};
use std::time::{SystemTime, UNIX_EPOCH};

/// What kind of whole-entity write is stamped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The item must not exist: `created_at` is now, the version 1.
    Create,
    /// The item may exist: `created_at` is kept (the entity's, or now when
    /// unset), the version is the entity's plus one.
    Replace,
}

/// An entity's item as a write stores it.
pub(crate) struct Stamped<E> {
    pub item: Item,
    /// The entity as stored; for an entity stored as it converts, `None`
    /// (the item decodes to it) or a clone of the caller's value (the put,
    /// create or upsert of a `Clone` entity, whose blind write then hands
    /// `item` to its request, leaving it empty: `into_entity` takes the
    /// clone).
    pub entity: Option<E>,
    /// For a versioned entity: the version the write expects the stored
    /// item to have (0: that there is none).
    pub expected: Option<u64>,
    /// A replace whose entity held no `created_at`: it was stamped now, for
    /// a new item; the write keeps a stored item's instead.
    pub created_unset: bool,
}

impl<E: Entity> Stamped<E> {
    /// An item stored as it is: nothing stamped.
    pub(crate) fn unstamped(item: Item) -> Self {
        Self {
            item,
            entity: None,
            expected: None,
            created_unset: false,
        }
    }

    /// The stored entity.
    pub(crate) fn into_entity(self) -> Result<E> {
        match self.entity {
            Some(entity) => Ok(entity),
            None => Ok(E::from_item(self.item)?),
        }
    }
}

/// Whether a whole-item write stores an entity's item just as `to_item`
/// converts it: nothing managed, no TTL or soft delete, nothing encrypted.
pub(crate) const fn stored_as_converted(model: &EntityModel) -> bool {
    let lifecycle = &model.lifecycle;
    model.managed.is_empty()
        && lifecycle.ttl.is_none()
        && lifecycle.soft_delete.is_none()
        && !model.encrypts()
}

/// Whether a whole-item write of `E` is checked against DynamoDB's limits
/// as its item is written ([`write_checked`]): it is stored as it converts,
/// its keys are written only by the derive's composers, and its limits can
/// be told from the writer ([`checked_as_written`]).
pub(crate) const fn checks_as_written<E: Entity>() -> bool {
    E::__DERIVED.composed_keys && stored_as_converted(E::MODEL) && checked_as_written(E::MODEL)
}

/// [`stamp`] for an entity that [`checks_as_written`] (which stamps
/// nothing): its item, written by a checking writer, and `on_key` of its
/// table key when it passed DynamoDB's limits on the way (`None` when the
/// writer cannot tell: check the item).
pub(crate) fn write_checked<E: Entity, T>(
    entity: &E,
    on_key: impl FnOnce(KeyRef<'_>) -> T,
) -> Result<(Item, Option<T>)> {
    let mut writer = ItemWriter::holding_table_key(E::MODEL);
    entity.write_item(&mut writer)?;
    let key = check_written(E::MODEL, &writer)?.map(on_key);
    Ok((writer.finish(), key))
}

/// Stamps `entity`'s managed fields for a write of kind `mode`.
pub(crate) fn stamp<E: Entity>(client: &Client, entity: &E, mode: Mode) -> Result<Stamped<E>> {
    let unstamped = Stamped::unstamped;
    // Decided per entity when the client is compiled: an entity without
    // managed fields, lifecycle or encryption is stored as it converts.
    if const { stored_as_converted(E::MODEL) } {
        return Ok(unstamped(entity.to_item()?));
    }
    client.check_encrypts(E::MODEL)?;
    let mut item = entity.to_item()?;
    live(&mut item, E::MODEL.lifecycle.soft_delete);
    let managed = &E::MODEL.managed;
    if let Some((attribute, expires)) = sliding_ttl::<E>(client) {
        item.insert(attribute.to_owned(), expires);
    }
    check_ttl::<E>(&item)?;
    if managed.is_empty() {
        return Ok(unstamped(item));
    }
    let now = client.now();
    for generated in managed.generated {
        let empty = match item.get(generated.attribute) {
            None | Some(AttributeValue::Null(_)) => true,
            Some(AttributeValue::S(text)) => text.is_empty(),
            Some(_) => false,
        };
        if empty {
            item.insert(
                generated.attribute.to_owned(),
                AttributeValue::S(new_id(generated.kind, now)),
            );
        }
    }
    if let Some(updated_at) = managed.updated_at {
        item.insert(updated_at.attribute.to_owned(), updated_at.value(now));
    }
    let mut created_unset = false;
    if let Some(created_at) = managed.created_at {
        let unset = is_unset(&created_at, item.get(created_at.attribute));
        created_unset = unset && mode == Mode::Replace;
        if mode == Mode::Create || unset {
            item.insert(created_at.attribute.to_owned(), created_at.value(now));
        }
    }
    let expected = match managed.version {
        Some(attribute) => {
            let held = version_of(&item, attribute);
            let (expected, next) = match mode {
                Mode::Create => (0, 1),
                Mode::Replace => (held, held.saturating_add(1)),
            };
            item.insert(attribute.to_owned(), AttributeValue::N(next.to_string()));
            Some(expected)
        }
        None => None,
    };
    // Read back and written again: keys composed of stamped fields follow.
    let stored = E::from_item(item)?;
    Ok(Stamped {
        item: stored.to_item()?,
        entity: Some(stored),
        expected,
        created_unset,
    })
}

/// The last second DynamoDB's TTL can mean: 9999-12-31T23:59:59Z. A value
/// past it is in milliseconds, most likely.
const LAST_TTL_SECOND: i64 = 253_402_300_799;

/// Refuses a TTL the writer cannot have meant: 0 (a default left in place)
/// or before 1970, which expires the item at once, and one past the year
/// 9999, which is milliseconds and never expires.
fn check_ttl<E: Entity>(item: &Item) -> Result<()> {
    let Some(ttl) = E::MODEL.lifecycle.ttl else {
        return Ok(());
    };
    let Some(AttributeValue::N(number)) = item.get(ttl.attribute) else {
        return Ok(());
    };
    let Ok(value) = number.parse::<i64>() else {
        return Ok(());
    };
    let reason = match value {
        0 => "0 (`EpochSeconds::default()`) is 1970: the item would be expired, hidden by every read, once written; set the expiry, or make the field an `Option` and leave it `None` for none",
        v if v < 0 => "a time before 1970 expires the item, hidden by every read, once written",
        v if v > LAST_TTL_SECOND => "past the year 9999 in seconds, so most likely milliseconds: DynamoDB's TTL is seconds since 1970, and this item would never expire; divide by 1000",
        _ => return Ok(()),
    };
    Err(crate::ValidationError::Ttl {
        entity: E::MODEL.name,
        field: ttl.field,
        value,
        reason,
    }
    .into())
}

/// `#[entity(ttl(after = "30d"))]`: the TTL attribute and its value, now
/// plus the declared time (a sliding expiry, moved by every write).
fn sliding_ttl<E: Entity>(client: &Client) -> Option<(&'static str, AttributeValue)> {
    let ttl = E::MODEL.lifecycle.ttl?;
    let after = std::time::Duration::from_secs(ttl.after?);
    Some((ttl.attribute, epoch_seconds(client.now() + after)))
}

/// A timestamp never set: absent, `NULL`, or the Unix epoch (the `Default`
/// of the timestamp types).
fn is_unset(model: &TimestampModel, value: Option<&AttributeValue>) -> bool {
    match value {
        None | Some(AttributeValue::Null(_)) => true,
        Some(value) => *value == model.value(UNIX_EPOCH),
    }
}

/// The version an item holds (0 when it has none, or one that is not a
/// non-negative integer).
pub(crate) fn version_of(item: &Item, attribute: &str) -> u64 {
    match item.get(attribute) {
        Some(AttributeValue::N(text)) => text.parse().unwrap_or(0),
        _ => 0,
    }
}

/// A new id of `kind`; a ULID carries `now`, the client's clock, so ids
/// sort as the `created_at` written beside them.
pub(crate) fn new_id(kind: IdKind, now: std::time::SystemTime) -> String {
    match kind {
        IdKind::Ulid => ulid::Ulid::from_datetime(now).to_string(),
        IdKind::Uuid => uuid::Uuid::new_v4().hyphenated().to_string(),
    }
}

/// The condition that the stored item has version `expected`. Version 0
/// is no version at all: no item, or one stored before the entity had a
/// version field (an item of an older entity version, read through its
/// upgrade), which reads as version 0.
pub(crate) fn version_condition<E: Entity>(attribute: &str, expected: u64) -> Condition<E> {
    if expected == 0 {
        entity_core::__private::condition_not_exists(attribute)
    } else {
        entity_core::__private::condition_equals(attribute, AttributeValue::N(expected.to_string()))
    }
}

/// An expected version is only for versioned entities: on another it would
/// be a check that is silently not made.
pub(crate) fn check_expected<E: Entity>(expected: Option<u64>) -> Result<()> {
    if expected.is_some() && E::MODEL.managed.version.is_none() {
        return Err(crate::ValidationError::InvalidRequest(format!(
            "{} has no #[entity(version)] field, so a write cannot expect a version",
            E::MODEL.name
        ))
        .into());
    }
    Ok(())
}

/// Adds the version condition of a versioned write to `condition`.
pub(crate) fn with_version<E: Entity>(
    condition: Option<Condition<E>>,
    expected: Option<u64>,
) -> Option<Condition<E>> {
    match (E::MODEL.managed.version, expected) {
        (Some(attribute), Some(expected)) => {
            and(condition, Some(version_condition(attribute, expected)))
        }
        _ => condition,
    }
}

/// A failed condition of a write that expected version `expected`, when
/// the stored version is another: `VersionConflict`.
pub(crate) fn version_conflict<E: Entity>(error: Error, expected: Option<u64>) -> Error {
    let (Some(attribute), Some(expected)) = (E::MODEL.managed.version, expected) else {
        return error;
    };
    match error {
        Error::ConditionFailed { entity, old, .. }
            if old
                .as_deref()
                .map(|item| version_of(item, attribute))
                .unwrap_or(0)
                != expected =>
        {
            Error::VersionConflict {
                entity,
                expected,
                found: old.as_deref().map(|item| version_of(item, attribute)),
                current: old,
            }
        }
        other => other,
    }
}

/// The managed changes of an update: the sliding TTL moved
/// ([`slide_ttl`]) and the managed fields stamped
/// ([`stamp_update_managed`]).
pub(crate) fn stamp_update<E: Entity>(client: &Client, update: Update<E>) -> Update<E> {
    slide_ttl(client, stamp_update_managed(client, update))
}

/// `#[entity(ttl(after = ..))]`: the update moves the TTL to now plus the
/// declared time.
pub(crate) fn slide_ttl<E: Entity>(client: &Client, update: Update<E>) -> Update<E> {
    match sliding_ttl::<E>(client) {
        Some((attribute, expires)) => {
            entity_core::__private::update_set_raw(update, attribute, expires)
        }
        None => update,
    }
}

/// The managed fields of an update: `updated_at` now, `created_at` now if
/// the update creates the item, the version plus one.
pub(crate) fn stamp_update_managed<E: Entity>(client: &Client, update: Update<E>) -> Update<E> {
    let managed = &E::MODEL.managed;
    let mut update = update;
    if managed.created_at.is_none() && managed.updated_at.is_none() && managed.version.is_none() {
        return update;
    }
    let now = client.now();
    if let Some(updated_at) = managed.updated_at {
        update = entity_core::__private::update_set_raw(
            update,
            updated_at.attribute,
            updated_at.value(now),
        );
    }
    if let Some(created_at) = managed.created_at {
        update = entity_core::__private::update_set_raw_if_not_exists(
            update,
            created_at.attribute,
            created_at.value(now),
        );
    }
    if let Some(version) = managed.version {
        update = entity_core::__private::update_add_raw(
            update,
            version,
            AttributeValue::N("1".to_owned()),
        );
    }
    update
}

/// The item a whole-item write stores is live: a `#[entity(deleted_at)]`
/// field the caller read from a deleted item is not written back.
pub(crate) fn live(item: &mut Item, soft: Option<SoftDeleteModel>) {
    if let Some(soft) = soft {
        item.remove(soft.attribute);
    }
}

/// Epoch seconds as DynamoDB's TTL reads them.
pub(crate) fn epoch_seconds(at: SystemTime) -> AttributeValue {
    let seconds = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    AttributeValue::N(seconds.to_string())
}

/// The unique values of the entity a write stores.
pub(crate) fn created_values<E: Entity>(stamped: &Stamped<E>) -> Result<Vec<Option<String>>> {
    if E::MODEL.managed.unique.is_empty() {
        return Ok(Vec::new());
    }
    Ok(match &stamped.entity {
        Some(entity) => entity.unique_values(),
        None => E::from_item(stamped.item.clone())?.unique_values(),
    })
}

/// The table key of a stamped entity.
pub(crate) fn stamped_key<E: Entity>(stamped: &Stamped<E>) -> Result<PrimaryKey<E>> {
    Ok(match &stamped.entity {
        Some(entity) => entity.primary_key(),
        None => E::from_item(stamped.item.clone())?.primary_key(),
    })
}

/// The entity stamped as `item` (expecting version `expected`), with the
/// stored item's `created_at` when there is a stored item (a put keeps the
/// creation time), read back so that its keys are composed from it.
pub(crate) fn keep_created<E: Entity>(
    item: &Item,
    expected: Option<u64>,
    stored: Option<&Item>,
) -> Result<Stamped<E>> {
    let mut item = item.clone();
    if let (Some(created_at), Some(stored)) = (E::MODEL.managed.created_at, stored) {
        if let Some(value) = stored.get(created_at.attribute) {
            item.insert(created_at.attribute.to_owned(), value.clone());
        }
    }
    let entity = E::from_item(item)?;
    Ok(Stamped {
        item: entity.to_item()?,
        entity: Some(entity),
        expected,
        created_unset: false,
    })
}
