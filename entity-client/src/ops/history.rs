//! Version history (`#[entity(history)]`, snapshots at `SK@n`): every write of
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
use super::{Companion, Conditional};
use crate::error::Result;
use crate::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem};
use entity_core::lifecycle::HistoryModel;
use entity_core::{Entity, Item};
use std::time::Duration;

/// The digits a snapshot's version is padded to.
pub(crate) const VERSION_DIGITS: usize = entity_core::lifecycle::SNAPSHOT_VERSION_DIGITS;

/// Where a snapshot whose TTL attribute holds its own expiry
/// (`history(expire_after = ..)`) keeps the version's TTL (`NULL` for
/// none).
pub(crate) const VERSION_TTL: &str = "__version_ttl";

/// What a snapshot's identity attribute holds.
pub(crate) fn snapshot_identity<E: Entity>() -> String {
    format!("{}#history", E::MODEL.name)
}

/// The sort key of version `version`'s snapshot of the item whose sort key
/// is `sk`.
pub(crate) fn snapshot_sk(history: &HistoryModel, sk: &str, version: u64) -> String {
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
        // The table's TTL attribute holds the snapshot's expiry: the
        // version's own TTL (or none) is kept beside it, and read back.
        let own = item.get(ttl.attribute).cloned();
        snapshot.insert(
            VERSION_TTL.to_owned(),
            own.unwrap_or(AttributeValue::Null(true)),
        );
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
        reclaim: None,
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
            reclaim: None,
            slot: true,
        });
    }
    Ok(out)
}

/// `attribute_not_exists(<pk>) OR <identity> = "<Entity>#history"`: the
/// condition of every snapshot write and delete.
pub(crate) fn snapshot_slot<E: Entity>() -> entity_core::expr::Condition<E> {
    let free = entity_core::__private::condition_not_exists(E::MODEL.primary.pk.attribute);
    let snapshot = entity_core::__private::condition_equals(
        E::MODEL.identity_attribute,
        AttributeValue::S(snapshot_identity::<E>()),
    );
    free.or(snapshot)
}
