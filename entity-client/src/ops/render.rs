//! An update request rendered: the update as sent (key fields, identity
//! and version completed) and its condition, for UpdateItem, a
//! transaction, a soft delete or a history snapshot.

use super::{and, render_condition, Expressions};
use crate::error::{Error, Result, ValidationError};
use entity_core::expr::{Condition, Placeholders, Update};
use entity_core::{Entity, PrimaryKey};

/// An update and its condition, rendered for UpdateItem or a transaction.
pub(crate) struct RenderedUpdate {
    pub expression: String,
    pub expressions: Expressions,
}

/// Renders an update, adding the key fields and identity attributes (an
/// update that creates the item must leave it readable as `E`) and the
/// guards of group changes.
pub(crate) fn render_update<E: Entity>(
    key: &PrimaryKey<E>,
    update: Update<E>,
    condition: Option<Condition<E>>,
) -> Result<RenderedUpdate> {
    render_completed(completed(key, update)?, condition)
}

/// The update as sent: with the fields the key is composed of and the
/// identity and version attributes, which an update that creates the item
/// must write.
pub(crate) fn completed<E: Entity>(key: &PrimaryKey<E>, update: Update<E>) -> Result<Update<E>> {
    let entity = E::MODEL.name;
    if update.is_empty() {
        return Err(ValidationError::EmptyUpdate { entity }.into());
    }
    // An update that creates the item also writes the fields its key is
    // composed of (kept as they are when the item exists).
    // In a fixed order: a request resent with its idempotency token must be
    // the same request, placeholders included.
    // A sharded index key a group setter recomposed takes its shard from
    // the item's table key, known only here.
    let sk = key.sk.as_ref().map_or("", |(_, sk)| sk.as_str());
    let update = entity_core::__private::resolve_shard_keys(update, &key.pk, sk);
    let mut key_fields: Vec<_> = E::key_fields(key).into_iter().collect();
    key_fields.sort_by(|a, b| a.0.cmp(&b.0));
    let update = key_fields
        .into_iter()
        .fold(update, |update, (name, value)| {
            entity_core::__private::update_set_raw_if_not_exists(update, &name, value)
        });
    let update = entity_core::__private::update_set_raw(
        update,
        E::MODEL.identity_attribute,
        aws_sdk_dynamodb::types::AttributeValue::S(entity.to_owned()),
    );
    // The version only on creation: an update is sent only to an item of
    // the current version (an older one is upgraded in place first), which
    // holds it already.
    Ok(entity_core::__private::update_set_raw_if_not_exists(
        update,
        E::MODEL.version_attribute,
        E::MODEL.version_value(),
    ))
}

/// Renders a completed update and its condition.
pub(crate) fn render_completed<E: Entity>(
    update: Update<E>,
    condition: Option<Condition<E>>,
) -> Result<RenderedUpdate> {
    let condition = and(condition, update.guards());
    let mut placeholders = Placeholders::default();
    let expression = update.render(&mut placeholders).map_err(|source| {
        Error::Validation(ValidationError::Value {
            context: "update",
            source,
        })
    })?;
    let condition = render_condition(condition.as_ref(), &mut placeholders, "update condition")?;
    Ok(RenderedUpdate {
        expression,
        expressions: Expressions::new(condition, placeholders),
    })
}
