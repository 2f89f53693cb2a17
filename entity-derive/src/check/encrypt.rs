//! The rules of `#[entity(encrypt)]` fields. An encrypted value is stored
//! as ciphertext that only the client reads back, signed with the item: so
//! it can be nothing DynamoDB reads or compares (a key, a TTL), nothing
//! stored elsewhere in plain text (a unique value's sentinel, an index
//! view), and nothing the client writes alone (managed fields).
//! Conditions, filters and updates of an encrypted field are refused by
//! its handle's role (`expr::Encrypted`), on the call.

use crate::ctxt::Ctxt;
use crate::model::names::field_name;
use crate::model::projection::{Projection, ProjectionDecl};
use crate::model::{Entity, Field};

pub fn check(cx: &Ctxt, entity: &Entity) {
    signed(cx, entity);
    let mut encrypted = false;
    for (f, field) in entity.fields.iter().enumerate() {
        let Some(span) = field.encrypt else {
            continue;
        };
        encrypted = true;
        let name = field_name(entity, f);
        if let Some(reason) = why_not(entity, f, field) {
            cx.error_at(
                span,
                format!("field `{name}` cannot be `encrypt`: {reason}; remove `encrypt`"),
            );
        }
    }
    if !encrypted {
        return;
    }
    // Every read verifies the item's signature, which an index item holds
    // only when the index projects whole items.
    for index in &entity.indexes {
        if let Some(decl) = index
            .projection
            .as_ref()
            .filter(|_| !ProjectionDecl::is_all(&index.projection))
        {
            cx.error_at(
                decl.span,
                format!("`{}` has encrypted fields: every read verifies an item's signature, which index `{}` would not hold; project `all` (remove `projection`)", entity.ident, index.name),
            );
        }
    }
}

/// `sign`: a field signed with its item (not encrypted). The client
/// updates managed and lifecycle fields on their own, which a signature
/// over them would refuse; a field is signed or encrypted (encrypted fields
/// are signed already).
fn signed(cx: &Ctxt, entity: &Entity) {
    for (f, field) in entity.fields.iter().enumerate() {
        let Some(span) = field.sign else {
            continue;
        };
        let name = field_name(entity, f);
        let index = entity.indexes.iter().find(|index| {
            index.composite_fields().contains(&f)
                || index
                    .multi_attribute
                    .as_ref()
                    .is_some_and(|m| m.attributes().any(|(a, _)| a.field == f))
        });
        let reason = if field.encrypt.is_some() {
            Some("it is `encrypt`, which signs it too".to_owned())
        } else if let Some(index) = index {
            Some(format!(
                "it is a composite of index `{}`, whose keys its group setter updates on their own",
                index.name
            ))
        } else if let Some((role, _)) = field.managed.first() {
            Some(format!(
                "it is the entity's `{}`, which the client updates on its own",
                role.name()
            ))
        } else {
            field.lifecycle.first().map(|(role, _)| {
                format!(
                    "it is the entity's `{}`, which the client updates on its own",
                    role.name()
                )
            })
        };
        if let Some(reason) = reason {
            cx.error_at(
                span,
                format!("field `{name}` cannot be `sign`: {reason}; remove `sign`"),
            );
        }
    }
}

/// Why field `f` cannot be encrypted, the first rule it breaks.
fn why_not(entity: &Entity, f: usize, field: &Field) -> Option<String> {
    use super::compress::ReadAsWritten;
    if let Some(read) = super::compress::read_as_written(entity, f, field) {
        return Some(match read {
            ReadAsWritten::Key(key) => format!("it is a composite of {key}, and DynamoDB compares and queries key values as written, which ciphertext defeats"),
            ReadAsWritten::Unique(unique) => format!("it is in unique constraint `{unique}`, whose sentinel item holds the value in plain text as its key"),
            ReadAsWritten::Managed(role) => format!("it is the entity's `{role}`, which the client writes and compares itself"),
            ReadAsWritten::Lifecycle(role) => format!("it is the entity's `{role}`, a time DynamoDB or the client reads in plain text"),
        });
    }
    let projected = entity.indexes.iter().find(|index| {
        matches!(&index.projection, Some(ProjectionDecl { projection: Projection::Include(fields), .. }) if fields.iter().any(|(g, _)| *g == f))
    });
    if let Some(index) = projected {
        return Some(format!(
            "index `{}` projects it, and an index item lacks the signature a read verifies",
            index.name
        ));
    }
    None
}
