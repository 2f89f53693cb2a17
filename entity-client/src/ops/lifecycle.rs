//! The lifecycle feature on the write side: what soft delete and TTL mean
//! for every write, in one place.
//!
//! The read side (which items a read shows) is
//! [`visibility`](super::visibility); this module holds the rules writes
//! share, so that no write path decides them on its own:
//!
//! - a stored item that is soft-deleted (and not `keep_unique`) or expired
//!   holds no unique values: its sentinels were freed, or may be taken
//!   over ([`holds_unique`]);
//! - a soft-deleted or expired item is not changed by `update` or `patch`
//!   (it reads as missing, [`live`]); `put` and `upsert` write a live item over it
//!   (the mark goes, [`revive_removes`]); `restore` brings it back and
//!   `purge` deletes it;
//! - a soft-deleted item is out of every secondary index, through every
//!   write that keeps it deleted (a migration's rewrite, [`keep_deleted`]);
//! - the TTL a soft delete sets (`expire_after`) replaces the sliding TTL
//!   of `ttl(after = ..)`, never both in one expression.

use super::managed::{self, epoch_seconds};
use super::visibility::{epoch_now, Deleted, Shown, Visibility};
use crate::{Client, Error};
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::expr::{Condition, Update};
use entity_core::lifecycle::SoftDeleteModel;
use entity_core::{Entity, Item};
use std::time::Duration;

/// Whether `item` (a stored item of `E`) is soft-deleted.
pub(crate) fn is_deleted<E: Entity>(item: &Item) -> bool {
    E::MODEL
        .lifecycle
        .soft_delete
        .is_some_and(|soft| item.contains_key(soft.attribute))
}

/// Whether the stored `item` holds its unique values, so that their
/// sentinels are its own: not once it is soft-deleted (unless
/// `soft_delete(keep_unique)`) or expired, when its values are free for
/// others.
pub(crate) fn holds_unique<E: Entity>(client: &Client, item: &Item) -> bool {
    let keeps = E::MODEL
        .lifecycle
        .soft_delete
        .is_some_and(|s| s.keep_unique);
    let shown = Shown {
        expired: false,
        deleted: if keeps {
            Deleted::Include
        } else {
            Deleted::Hide
        },
    };
    Visibility::of::<E>(client, shown).shows(item)
}

/// The condition that the item is live, for an entity that soft-deletes
/// or expires: not soft-deleted, and not expired at the client's now.
/// `update` and `patch` never change an item a read would not show: a
/// patch moving an expired item's TTL would bring back an item whose
/// unique values, free since it expired, another item may hold now.
pub(crate) fn live<E: Entity>(client: &Client) -> Option<Condition<E>> {
    let expired = E::MODEL.lifecycle.ttl.map(|ttl| {
        entity_core::__private::condition_expired::<E>(ttl.attribute, epoch_now(client)).not()
    });
    match (not_deleted::<E>(), expired) {
        (Some(live), Some(fresh)) => Some(live.and(fresh)),
        (live, fresh) => live.or(fresh),
    }
}

/// Whether a read would show the stored `item`: not soft-deleted, not
/// expired.
pub(crate) fn shown<E: Entity>(client: &Client, item: &Item) -> bool {
    Visibility::of::<E>(client, Shown::default()).shows(item)
}

/// The condition that the item is not soft-deleted, for an entity that
/// soft-deletes.
pub(crate) fn not_deleted<E: Entity>() -> Option<Condition<E>> {
    let soft = E::MODEL.lifecycle.soft_delete?;
    Some(entity_core::__private::condition_not_exists(soft.attribute))
}

/// The caller's condition of a write that may meet a soft-deleted item (a
/// put, an upsert, a transaction's put or condition check), made to hold
/// on a deleted item just as it would on a missing one: a deleted item
/// reads as missing to writes. `C` becomes `C AND` not deleted, or, for a
/// condition that holds on a missing item (`attribute_not_exists`, `<>`),
/// `C OR` deleted. As it is for an entity that does not soft-delete.
pub(crate) fn as_if_missing<E: Entity>(condition: Option<Condition<E>>) -> Option<Condition<E>> {
    let soft = E::MODEL.lifecycle.soft_delete;
    match (condition, soft) {
        (Some(condition), Some(soft)) if condition.holds_on_missing() => {
            Some(condition.or(entity_core::__private::condition_exists(soft.attribute)))
        }
        (Some(condition), Some(soft)) => {
            Some(entity_core::__private::condition_not_exists(soft.attribute).and(condition))
        }
        (condition, _) => condition,
    }
}

/// A put's failed condition that met a soft-deleted item, told as one that
/// met no item (no `old`): the item reads as missing.
pub(crate) fn deleted_as_missing<E: Entity>(error: Error) -> Error {
    match error {
        Error::ConditionFailed {
            entity,
            why,
            old: Some(old),
            source,
        } if is_deleted::<E>(&old) => Error::ConditionFailed {
            entity,
            why,
            old: None,
            source,
        },
        other => other,
    }
}

/// A write's failed condition that met a soft-deleted item: the item is
/// not found, as every read says.
pub(crate) fn deleted_as_not_found<E: Entity>(client: &Client, error: Error) -> Error {
    match error {
        Error::ConditionFailed {
            entity,
            old: Some(old),
            ..
        } if !shown::<E>(client, &old) => Error::NotFound { entity },
        other => other,
    }
}

/// What a whole-item write removes besides absent fields: the deletion
/// mark, so that a `put` or `upsert` over a soft-deleted item writes a
/// live item (as a PutItem does by replacing it).
pub(crate) fn revive_removes<E: Entity>(item: &Item) -> Vec<&'static str> {
    let Some(soft) = E::MODEL.lifecycle.soft_delete else {
        return Vec::new();
    };
    let kept = soft.expire_after.map(|_| KEPT_TTL);
    [Some(soft.attribute), kept]
        .into_iter()
        .flatten()
        .filter(|attribute| !item.contains_key(*attribute))
        .collect()
}

/// A rewrite of `stored` as `item` keeps it as deleted as it was: the
/// deletion mark (and the TTL the delete set) carried over, and no
/// secondary index key written.
pub(crate) fn keep_deleted<E: Entity>(stored: &Item, item: &mut Item) {
    let Some(soft) = E::MODEL.lifecycle.soft_delete else {
        return;
    };
    let Some(mark) = stored.get(soft.attribute) else {
        return;
    };
    item.insert(soft.attribute.to_owned(), mark.clone());
    if let (Some(_), Some(ttl)) = (soft.expire_after, E::MODEL.lifecycle.ttl) {
        for attribute in [ttl.attribute, KEPT_TTL] {
            match stored.get(attribute) {
                Some(value) => item.insert(attribute.to_owned(), value.clone()),
                None => item.remove(attribute),
            };
        }
    }
    for attribute in secondary_key_attributes::<E>() {
        item.remove(attribute);
    }
}

/// What a soft delete changes: the deletion time, the TTL it sets, and the
/// removal of every composed secondary index key (the item leaves those
/// indexes); `updated_at` and the version move as on any update. The TTL
/// is the delete's (`expire_after`) when it declares one, else the sliding
/// one (`ttl(after = ..)`), never both: one attribute set twice is a
/// request DynamoDB refuses.
pub(crate) fn soft_delete_update<E: Entity>(client: &Client, soft: &SoftDeleteModel) -> Update<E> {
    let now = client.now();
    let mut update =
        entity_core::__private::update_set_raw(Update::<E>::new(), soft.attribute, (soft.at)(now));
    let expires = soft.expire_after.and_then(|after| {
        let ttl = E::MODEL.lifecycle.ttl?;
        Some((ttl.attribute, now + Duration::from_secs(after)))
    });
    if let Some((attribute, at)) = expires {
        // The item's own TTL (or none) is kept, for a restore to put back.
        let none = AttributeValue::Null(true);
        update = entity_core::__private::update_copy_raw_or(update, KEPT_TTL, attribute, none);
        update = entity_core::__private::update_set_raw(update, attribute, epoch_seconds(at));
    }
    for attribute in secondary_key_attributes::<E>() {
        update = entity_core::__private::update_remove_raw(update, attribute);
    }
    let update = managed::stamp_update_managed(client, update);
    match expires {
        Some(_) => update,
        None => managed::slide_ttl(client, update),
    }
}

/// Whether a soft delete's failed condition found nothing to mark: no item,
/// or an item already deleted.
pub(crate) fn is_gone(old: Option<&Item>, soft: &SoftDeleteModel) -> bool {
    old.is_none_or(|item| item.contains_key(soft.attribute))
}

/// Where a soft delete that sets a TTL (`expire_after`) keeps the item's
/// own (`NULL` for none), for `restore` to put back.
pub(crate) const KEPT_TTL: &str = "__ttl_before_delete";

/// The stored item as `restore` writes it: without the deletion mark, and
/// with the TTL it had before a delete that set one (`expire_after`), or
/// none; a sliding TTL is moved by the restore's write as by any other.
/// Also the attributes the restore removes.
pub(crate) fn undeleted<E: Entity>(
    mut stored: Item,
    soft: &SoftDeleteModel,
) -> (Item, Vec<&'static str>) {
    let mut removes = vec![soft.attribute];
    stored.remove(soft.attribute);
    if let (Some(_), Some(ttl)) = (soft.expire_after, E::MODEL.lifecycle.ttl) {
        removes.push(KEPT_TTL);
        match stored.remove(KEPT_TTL) {
            Some(own @ AttributeValue::N(_)) => {
                stored.insert(ttl.attribute.to_owned(), own);
            }
            // Sliding: the restore's write sets it again (a value to read
            // the entity by until then).
            _ if ttl.after.is_some() => {}
            // None before the delete (or a delete that kept none).
            _ => {
                stored.remove(ttl.attribute);
                removes.push(ttl.attribute);
            }
        }
    }
    (stored, removes)
}

/// The composed key attributes of the secondary indexes: not the table's,
/// and not a field's own attribute (a multi-attribute GSI keys on fields,
/// which a soft delete keeps).
pub(crate) fn secondary_key_attributes<E: Entity>() -> Vec<&'static str> {
    let model = E::MODEL;
    let table = &model.primary;
    let is_table_key =
        |a: &str| a == table.pk.attribute || table.sk.is_some_and(|sk| sk.attribute == a);
    let is_field = |a: &str| model.fields.iter().any(|f| f.attribute == a);
    let mut out = Vec::new();
    for index in model
        .indexes
        .iter()
        .filter(|i| i.multi_attribute.is_empty())
    {
        for key in std::iter::once(&index.pk).chain(&index.sk) {
            let a = key.attribute;
            if !is_table_key(a) && !is_field(a) && !out.contains(&a) {
                out.push(a);
            }
        }
    }
    out
}
