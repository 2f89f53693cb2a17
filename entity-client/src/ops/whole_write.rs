//! The write of one whole item, a put or an upsert, with every feature's
//! part: assembled here once for the writes, restores and transactions.

use super::single::{Action, IdentityGuard, SingleWrite};
use super::{history, unique};
use super::{is_table_key, render_condition, Expressions};
use crate::error::Result;
use crate::Client;
use entity_core::expr::{Condition, Placeholders, Update};
use entity_core::{Entity, Item};
use std::borrow::Cow;

/// A whole item's write: what is written, and what the write carries.
pub(crate) struct WholeWrite<'a, E> {
    /// The item, stamped: borrowed, or handed over by a write planned once
    /// (the request then takes it without a copy).
    pub item: Cow<'a, Item>,
    /// An UpdateItem leaving attributes the entity does not own, rather
    /// than a PutItem.
    pub upsert: bool,
    /// Attributes an upsert also removes (a restore's deletion marks).
    pub removes: &'a [&'static str],
    pub condition: Option<&'a Condition<E>>,
    /// A tenant's write: only over an absent item or one of `E`.
    pub identity: Option<IdentityGuard>,
    /// The unique values the stored item holds, and the ones the written
    /// item holds: the sentinels move from the first to the second.
    pub held: &'a [Option<String>],
    pub holds: &'a [Option<String>],
}

impl<E: Entity> WholeWrite<'_, E> {
    /// The write with each feature's part, in the order of
    /// `guide::composition`: the item's put or upsert under the condition
    /// (the managed fields and lifecycle are in the stamped item already),
    /// the unique sentinels moved, the history snapshot, and the identity
    /// guard (rendered when sent, as no condition of the caller's). A
    /// single write sends it in its read-modify-write loop; a transaction
    /// adds it as its items ([`SingleWrite::into_transact_items`]).
    pub(crate) fn plan(self, client: &Client) -> Result<SingleWrite> {
        let mut companions = unique::moves::<E>(client, self.held, self.holds, &self.item)?;
        companions.extend(history::companions::<E>(client, &self.item)?);
        let mut write = whole_write(self.item, self.upsert, self.condition, self.removes)?;
        write.companions = companions;
        write.identity = self.identity;
        Ok(write)
    }
}

/// The write of a whole item: a PutItem, or for an upsert an UpdateItem
/// setting every attribute but the table key (`created_at` only if the
/// item has none) and removing absent fields and `removes` (the
/// marks of a soft delete, on restore).
fn whole_write<E: Entity>(
    item: Cow<'_, Item>,
    upsert: bool,
    condition: Option<&Condition<E>>,
    removes: &[&'static str],
) -> Result<SingleWrite> {
    let mut placeholders = Placeholders::default();
    let action = if upsert {
        let key = table_key_of::<E>(&item);
        let expression = upsert_expression::<E>(item.into_owned(), removes, &mut placeholders)?;
        Action::Update { key, expression }
    } else {
        Action::Put {
            item: item.into_owned(),
        }
    };
    let context = if upsert {
        "upsert condition"
    } else {
        "put condition"
    };
    let condition = render_condition(condition, &mut placeholders, context)?;
    Ok(SingleWrite::new(
        E::MODEL.name,
        action,
        Expressions::new(condition, placeholders),
    ))
}

/// The table key attributes of an item.
fn table_key_of<E: Entity>(item: &Item) -> Item {
    item.iter()
        .filter(|(name, _)| is_table_key::<E>(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// The upsert's UpdateExpression: `SET` every attribute of the item but the
/// table key (`created_at` with `if_not_exists`), `REMOVE` absent fields.
fn upsert_expression<E: Entity>(
    item: Item,
    removes: &[&'static str],
    placeholders: &mut Placeholders,
) -> Result<String> {
    let created_at = E::MODEL.managed.created_at.map(|c| c.attribute);
    // Absent fields, and the index keys they composed (a sparse index the
    // item leaves), go; so does a deletion mark (the upsert writes a live
    // item, as a put does).
    let absent = E::MODEL
        .fields
        .iter()
        .map(|field| field.attribute)
        .chain(super::lifecycle::secondary_key_attributes::<E>())
        .chain(super::lifecycle::revive_removes::<E>(&item))
        .chain(removes.iter().copied());
    let mut removed: Vec<&str> = Vec::new();
    for attribute in absent {
        if !removed.contains(&attribute) && !item.contains_key(attribute) {
            removed.push(attribute);
        }
    }
    // In a fixed order: a request resent with its idempotency token must be
    // the same request, placeholders included.
    let mut attributes: Vec<_> = item.into_iter().collect();
    attributes.sort_by(|a, b| a.0.cmp(&b.0));
    let mut update = Update::<E>::new();
    for (name, value) in attributes {
        if is_table_key::<E>(&name) {
            continue;
        }
        update = if Some(name.as_str()) == created_at {
            entity_core::__private::update_set_raw_if_not_exists(update, &name, value)
        } else {
            entity_core::__private::update_set_raw(update, &name, value)
        };
    }
    let mut expression =
        update
            .render(placeholders)
            .map_err(|source| crate::ValidationError::Value {
                context: "upsert",
                source,
            })?;
    if !removed.is_empty() {
        let names: Vec<String> = removed.iter().map(|a| placeholders.name(a)).collect();
        expression.push_str(&format!(" REMOVE {}", names.join(", ")));
    }
    Ok(expression)
}
