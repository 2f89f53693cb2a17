//! The rules of `#[entity(compress)]` fields. A compressed value is stored
//! as a binary the client alone reads back, so it can be nothing that
//! DynamoDB or the client reads as its plain value. Field types are checked
//! by the compiler, on the field (`Compressible`, `expand::keys::type_checks`).

use crate::ctxt::Ctxt;
use crate::model::names::field_name;
use crate::model::{Entity, Field};

pub fn check(cx: &Ctxt, entity: &Entity) {
    for (f, field) in entity.fields.iter().enumerate() {
        let Some(compress) = field.compress else {
            continue;
        };
        let name = field_name(entity, f);
        if let Some(reason) = why_not(entity, f, field) {
            cx.error_at(
                compress.span,
                format!("field `{name}` cannot be `compress`: {reason}; remove `compress`"),
            );
        }
    }
}

/// Why field `f` cannot be compressed, the first rule it breaks, in order:
///
/// - a key composite is text composed into a key (or, in a multi-attribute
///   key, the key attribute itself), which DynamoDB compares and sorts as
///   written, so it cannot be a compressed binary;
/// - a unique constraint's value is key text in its sentinel item;
/// - the client writes a managed field (`created_at`, `updated_at`,
///   `version`, `generate`) and a lifecycle field (`ttl`, `deleted_at`)
///   itself, as a number or a timestamp DynamoDB reads (TTL) or the client
///   compares (versions);
/// - a serde field is stored as whatever its `Serialize` writes (a map, a
///   list), not text or bytes.
fn why_not(entity: &Entity, f: usize, field: &Field) -> Option<String> {
    if let Some(key) = key_holding(entity, f) {
        return Some(format!(
            "it is a composite of {key}, and key values are text DynamoDB compares as written"
        ));
    }
    if let Some(unique) = entity
        .unique
        .iter()
        .find(|u| u.fields.iter().any(|c| c.field == f))
    {
        return Some(format!(
            "it is in unique constraint `{}`, whose sentinel item holds the value as key text",
            unique.name
        ));
    }
    if let Some((role, _)) = field.managed.first() {
        return Some(format!(
            "it is the entity's `{}`, which the client writes itself",
            role.name()
        ));
    }
    if let Some((role, _)) = field.lifecycle.first() {
        return Some(format!(
            "it is the entity's `{}`, which the client writes itself as a time DynamoDB or the client reads",
            role.name()
        ));
    }
    if field.serde {
        return Some(
            "`serde` stores it as the map or list its `Serialize` writes, not text or bytes (to compress a structured value, keep its JSON in a `String` field)"
                .to_owned(),
        );
    }
    None
}

/// The first key holding field `f`, described (`the table's pk`, `index
/// \`by_project\`'s sk`).
pub fn key_holding(entity: &Entity, f: usize) -> Option<String> {
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        let owner = |which: &str| {
            if std::ptr::eq(index, &entity.primary) {
                format!("the table's {which}")
            } else {
                format!("index `{}`'s {which}", index.name)
            }
        };
        for (which, key) in index.keys() {
            if key.composites.iter().any(|c| c.field == f) {
                return Some(owner(which));
            }
        }
        if let Some(multi) = &index.multi_attribute {
            if multi.attributes().any(|(a, _)| a.field == f) {
                return Some(owner("multi-attribute key"));
            }
        }
    }
    None
}
