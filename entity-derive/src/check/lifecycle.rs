//! The rules of the lifecycle declarations: the `ttl` and `deleted_at`
//! fields, `soft_delete` and `history`. Field types are checked by the
//! compiler, on the field (`expand::lifecycle::type_checks`).

use crate::attr::{LifecycleRole, ManagedRole};
use crate::ctxt::Ctxt;
use crate::model::managed::option_inner;
use crate::model::names::field_name;
use crate::model::{Entity, IndexKind};
use proc_macro2::Span;

pub fn check(cx: &Ctxt, entity: &Entity) {
    one_role_per_field(cx, entity);
    one_field_per_role(cx, entity);
    roles_are_not_serde(cx, entity);
    lifecycle_fields_stay_out_of_keys(cx, entity);
    deleted_at_needs_soft_delete(cx, entity);
    deleted_at_is_optional(cx, entity);
    default_deleted_at_attribute_is_free(cx, entity);
    expiry_needs_a_ttl_field(cx, entity);
    history_needs_a_version(cx, entity);
    history_needs_a_text_sort_key(cx, entity);
    history_separator_is_unambiguous(cx, entity);
    history_keeps_something(cx, entity);
}

/// The attribute soft delete writes when no field is `deleted_at`
/// (`entity_core::lifecycle::DELETED_AT_ATTRIBUTE`, which a test in
/// `tests/tests/lifecycle_model.rs` pins to this one).
const DELETED_AT_ATTRIBUTE: &str = "__deleted_at";

/// A field holds one thing the client writes: a TTL is not a deletion time,
/// and neither is a creation time, a version or a generated id, each of
/// which the client writes at other moments.
fn one_role_per_field(cx: &Ctxt, entity: &Entity) {
    for field in &entity.fields {
        let managed = field.managed.first().map(|(r, _)| r.name());
        let first = managed.or(field.lifecycle.first().map(|(r, _)| r.name()));
        let Some(first) = first else { continue };
        let skip = usize::from(managed.is_none());
        for (role, span) in field.lifecycle.iter().skip(skip) {
            cx.error_at(*span, format!(
                "field `{}` is already `{first}`; the client writes one value into a field, so give `{}` its own field",
                field.ident, role.name()
            ));
        }
    }
}

/// An item has one expiry, which DynamoDB reads from one attribute per
/// table, and one deletion time.
fn one_field_per_role(cx: &Ctxt, entity: &Entity) {
    let roles = entity.fields.iter().flat_map(|field| {
        (field.lifecycle.iter()).map(move |(role, span)| (field.ident, role.name(), *span))
    });
    super::managed::one_field_each(cx, roles);
}

/// DynamoDB's TTL reads a number of epoch seconds, and soft delete writes a
/// timestamp the client converts natively; a serde field is stored as
/// whatever its `Serialize` writes.
fn roles_are_not_serde(cx: &Ctxt, entity: &Entity) {
    let roles = entity.fields.iter().filter(|f| f.serde).flat_map(|field| {
        (field.lifecycle.iter()).map(move |(role, span)| (field.ident, role.name(), *span))
    });
    super::managed::none_on_serde(cx, roles);
}

/// The TTL is stored as epoch seconds and rewritten by the client (`after`,
/// soft delete's and history's expiries), and `deleted_at` is set and
/// cleared by delete and restore, each with an update that does not know a
/// key's other composites: a key composed from either would go stale (or,
/// for the table's keys, the item would move).
fn lifecycle_fields_stay_out_of_keys(cx: &Ctxt, entity: &Entity) {
    let ttl = entity.lifecycle_field(|r| matches!(r, LifecycleRole::Ttl { .. }));
    let deleted_at = entity.deleted_at_field();
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        for (which, key) in index.keys() {
            if index.kind == IndexKind::Local && which == "pk" && !index.pk_written {
                continue; // the table's, reported there
            }
            let owner = match index.kind {
                IndexKind::Primary => format!("the table's {which}"),
                _ => format!("index `{}`", index.name),
            };
            for c in &key.composites {
                let role = if Some(c.field) == ttl {
                    "the time-to-live `ttl`, stored as epoch seconds and rewritten by the client"
                } else if Some(c.field) == deleted_at {
                    "the soft-delete time `deleted_at`, set by delete and cleared by restore"
                } else {
                    continue;
                };
                cx.error_at(c.token, format!(
                    "field `{}` is {role}, so it cannot be a composite of {owner}: the key would not follow its changes",
                    field_name(entity, c.field)
                ));
            }
        }
    }
}

/// `deleted_at` names where soft delete records the deletion time; without
/// `soft_delete` nothing ever writes it.
fn deleted_at_needs_soft_delete(cx: &Ctxt, entity: &Entity) {
    if entity.soft_delete.is_some() {
        return;
    }
    for (role, span) in entity.fields.iter().flat_map(|f| &f.lifecycle) {
        if *role == LifecycleRole::DeletedAt {
            cx.error_at(*span, "`deleted_at` is where soft delete records the deletion time, and this entity does not soft-delete: add `#[entity(soft_delete)]`, or remove `deleted_at`");
        }
    }
}

/// A live item has no deletion time: `None` until deleted, `None` again
/// once restored.
fn deleted_at_is_optional(cx: &Ctxt, entity: &Entity) {
    for field in &entity.fields {
        let deleted_at = field
            .lifecycle
            .iter()
            .any(|(r, _)| *r == LifecycleRole::DeletedAt);
        if deleted_at && option_inner(field.ty).is_none() {
            cx.error(field.ty, format!(
                "a live item has no deletion time, so the `deleted_at` field `{}` is an `Option` of a timestamp, such as `Option<chrono::DateTime<Utc>>`",
                field.ident
            ));
        }
    }
}

/// Without a `deleted_at` field, soft delete writes `__deleted_at`, which
/// no field may also be stored in.
fn default_deleted_at_attribute_is_free(cx: &Ctxt, entity: &Entity) {
    if entity.soft_delete.is_none() || entity.deleted_at_field().is_some() {
        return;
    }
    for field in entity
        .fields
        .iter()
        .filter(|f| f.attribute == DELETED_AT_ATTRIBUTE)
    {
        cx.error_at(field.attribute_span, format!(
            "attribute `{DELETED_AT_ATTRIBUTE}` is where soft delete records the deletion time; mark field `{}` `#[entity(deleted_at)]`, or rename it",
            field.ident
        ));
    }
}

/// An expiry is a TTL the client sets, which needs the attribute DynamoDB
/// reads it from: a `ttl` field.
fn expiry_needs_a_ttl_field(cx: &Ctxt, entity: &Entity) {
    if entity.ttl().is_some() {
        return;
    }
    let expiries: [(&str, Option<Span>); 2] = [
        (
            "soft_delete",
            entity
                .soft_delete
                .as_ref()
                .and_then(|s| s.expire_after.map(|e| e.1)),
        ),
        (
            "history",
            entity
                .history
                .as_ref()
                .and_then(|h| h.expire_after.map(|e| e.1)),
        ),
    ];
    for (owner, span) in expiries {
        if let Some(span) = span {
            cx.error_at(span, format!(
                "`{owner}(expire_after = ...)` sets the item's time to live, and this entity has no TTL field: add one, such as `#[entity(ttl)] expires_at: Option<entity_core::EpochSeconds>`"
            ));
        }
    }
}

/// A snapshot is stored per version, at `<sk><separator><version>`.
fn history_needs_a_version(cx: &Ctxt, entity: &Entity) {
    let Some(history) = &entity.history else {
        return;
    };
    if entity
        .managed_field(|r| r == ManagedRole::Version)
        .is_none()
    {
        cx.error_at(history.span, "`history` keeps a snapshot per version, and this entity has no version: add an `#[entity(version)] version: u64` field");
    }
}

/// Snapshots live beside the live item, in its partition, at its sort key
/// with the version appended: the table needs a sort key of text.
fn history_needs_a_text_sort_key(cx: &Ctxt, entity: &Entity) {
    let Some(history) = &entity.history else {
        return;
    };
    match &entity.primary.sk {
        None => cx.error_at(history.span, "`history` stores snapshots at `<sk><separator><version>` in the item's partition, and the table has no sort key: add `#[sk(...)]` (it may list no fields)"),
        Some(sk) if sk.number.is_some() => cx.error_at(history.span, "`history` stores snapshots at `<sk><separator><version>`, text, and the table's sort key is a `number`: remove `number` from `#[sk(...)]`"),
        Some(_) => {}
    }
}

/// A snapshot's sort key is the live one, the separator, the version. A `#`
/// would read as one more key segment, and the characters up to `%` never
/// appear raw in a composed key (values escape them to `%XX`): with either,
/// a snapshot's sort key could be read as another key, or as an escape.
fn history_separator_is_unambiguous(cx: &Ctxt, entity: &Entity) {
    let Some(history) = &entity.history else {
        return;
    };
    let separator = &history.separator;
    if separator.is_empty() || separator.chars().any(|c| c == '#' || c <= '%') {
        cx.error_at(history.separator_span, format!(
            "history separator {separator:?} would make a snapshot's sort key ambiguous: use a non-empty separator without `#` (the segment separator) or any character up to `%` (space, `!`, `\"`, `$`, `%`: key values escape those), such as the default `@`"
        ));
    }
}

/// Keeping no snapshot is not history.
fn history_keeps_something(cx: &Ctxt, entity: &Entity) {
    if let Some((0, span)) = entity.history.as_ref().and_then(|h| h.keep) {
        cx.error_at(span, "`history(keep = 0)` keeps no snapshot: keep at least 1, or leave `keep` out to keep every version");
    }
}
