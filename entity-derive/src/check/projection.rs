//! The rules of `projection = ...` on an index.

use crate::ctxt::Ctxt;
use crate::model::projection::{Projection, ProjectionDecl};
use crate::model::{Entity, Index};

/// Checks every index's `include(..)`.
pub fn check(cx: &Ctxt, entity: &Entity) {
    for index in &entity.indexes {
        let Some(decl) = &index.projection else {
            continue;
        };
        // A collection query decodes every member whole.
        if let Some(collection) = index
            .collection
            .as_ref()
            .filter(|_| !ProjectionDecl::is_all(&index.projection))
        {
            cx.error_at(
                decl.span,
                format!("index `{}` joins collection `{}`, whose queries read every member whole: it projects `all`. Remove `projection`, or declare a separate index for the projected reads", index.name, collection.path.join(" > ")),
            );
            continue;
        }
        lifecycle_rules(cx, entity, index, decl);
        let Projection::Include(fields) = &decl.projection else {
            continue;
        };
        // `include()` projects nothing beyond the keys: that is
        // `keys_only`, and saying so keeps one way to write it.
        if fields.is_empty() {
            cx.error_at(
                decl.span,
                "`include()` names no field: list the fields to project, `include(title, due)`, or write `keys_only` for the keys alone",
            );
        }
        let keyed = key_fields(entity, index);
        for (position, &(field, span)) in fields.iter().enumerate() {
            let name = &entity.fields[field].ident;
            // Key composites are read back from the keys, which every
            // index projects: listing one would store it twice.
            if keyed.contains(&field) {
                cx.error_at(
                    span,
                    format!("`{name}` is a key composite of this index or of the table, projected already: leave it out of `include(..)`"),
                );
            } else if fields[..position].iter().any(|&(f, _)| f == field) {
                cx.error_at(span, format!("`{name}` is listed twice in `include(..)`"));
            }
        }
    }
}

/// A `keys_only` index holds no lifecycle attribute, so its queries could
/// not hide an expired item (DynamoDB removes those days late), nor a
/// soft-deleted one where deleting leaves the item in the index (a
/// multi-attribute key is the fields themselves). `include(..)` carries
/// both attributes.
fn lifecycle_rules(cx: &Ctxt, entity: &Entity, index: &Index, decl: &ProjectionDecl) {
    if !matches!(decl.projection, Projection::KeysOnly) {
        return;
    }
    if let Some(ttl) = entity.ttl() {
        let name = entity.fields[ttl.field].ident;
        cx.error_at(
            decl.span,
            format!("a `keys_only` index cannot hide expired items: it would not hold `{name}`, the time to live, and DynamoDB deletes expired items late. Write `include(..)` (with any fields, it also projects the TTL attribute) or `all`"),
        );
    } else if entity.soft_delete.is_some() && index.multi_attribute.is_some() {
        cx.error_at(
            decl.span,
            "a `keys_only` multi-attribute index cannot hide soft-deleted items: a soft delete leaves the item in it, and the index would not hold the deletion mark. Write `include(..)` (with any fields, it also projects the mark) or `all`",
        );
    }
}

/// The fields whose values every index projects: the table's key
/// composites and this index's (composed or multi-attribute), less those
/// whose key text is lossy (a time bucket, a case-folded value), which
/// `include(..)` may list.
pub fn key_fields(entity: &Entity, index: &Index) -> Vec<usize> {
    let exact = |key: &crate::model::Key| {
        key.composites
            .iter()
            .filter(|c| c.bucket.is_none() && key.value_casing.is_none())
            .map(|c| c.field)
            .collect::<Vec<_>>()
    };
    let mut out: Vec<usize> = entity
        .primary
        .keys()
        .flat_map(|(_, key)| exact(key))
        .collect();
    out.extend(index.own_keys().flat_map(|(_, key)| exact(key)));
    if let Some(multi) = &index.multi_attribute {
        out.extend(multi.attributes().map(|(a, _)| a.field));
    }
    out.sort_unstable();
    out.dedup();
    out
}
