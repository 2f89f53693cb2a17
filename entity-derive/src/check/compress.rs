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
    if let Some(read) = read_as_written(entity, f, field) {
        return Some(match read {
            ReadAsWritten::Key(key) => format!("it is a composite of {key}, and key values are text DynamoDB compares as written"),
            ReadAsWritten::Unique(unique) => format!("it is in unique constraint `{unique}`, whose sentinel item holds the value as key text"),
            ReadAsWritten::Managed(role) => format!("it is the entity's `{role}`, which the client writes itself"),
            ReadAsWritten::Lifecycle(role) => format!("it is the entity's `{role}`, which the client writes itself as a time DynamoDB or the client reads"),
        });
    }
    if field.serde {
        return Some(
            "`serde` stores it as the map or list its `Serialize` writes, not text or bytes (to compress a structured value, keep its JSON in a `String` field)"
                .to_owned(),
        );
    }
    None
}

/// Why DynamoDB or the client reads field `f` as it is written, so its
/// stored form cannot change (`compress`, `encrypt`): the first of these
/// that holds.
pub enum ReadAsWritten<'a> {
    /// A composite of this key, described ([`key_holding`]).
    Key(String),
    /// In this unique constraint, whose sentinel's key holds the value.
    Unique(&'a str),
    /// This managed field (`created_at`, `version`, ..).
    Managed(&'static str),
    /// This lifecycle field (`ttl`, `deleted_at`).
    Lifecycle(&'static str),
}

pub fn read_as_written<'a>(
    entity: &'a Entity,
    f: usize,
    field: &Field,
) -> Option<ReadAsWritten<'a>> {
    if let Some(key) = key_holding(entity, f) {
        return Some(ReadAsWritten::Key(key));
    }
    if let Some(unique) = entity
        .unique
        .iter()
        .find(|u| u.fields.iter().any(|c| c.field == f))
    {
        return Some(ReadAsWritten::Unique(&unique.name));
    }
    if let Some((role, _)) = field.managed.first() {
        return Some(ReadAsWritten::Managed(role.name()));
    }
    field
        .lifecycle
        .first()
        .map(|(role, _)| ReadAsWritten::Lifecycle(role.name()))
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
