//! The rules of `projection = ...` on an index.

use crate::ctxt::Ctxt;
use crate::model::projection::Projection;
use crate::model::{Entity, Index};

/// Checks every index's `include(..)`.
pub fn check(cx: &Ctxt, entity: &Entity) {
    for index in &entity.indexes {
        let Some(decl) = &index.projection else {
            continue;
        };
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

/// The fields whose values every index projects: the table's key
/// composites and this index's (composed or multi-attribute).
pub fn key_fields(entity: &Entity, index: &Index) -> Vec<usize> {
    let mut out = entity.primary.composite_fields();
    out.extend(index.composite_fields());
    if let Some(multi) = &index.multi_attribute {
        out.extend(multi.attributes().map(|(a, _)| a.field));
    }
    out.sort_unstable();
    out.dedup();
    out
}
