//! The rules of managed fields (`created_at`, `updated_at`, `version`,
//! `generate`) and unique constraints. Field types are checked by the
//! compiler, on the field (`expand::managed::type_checks`).

use crate::attr::ManagedRole;
use crate::ctxt::Ctxt;
use crate::model::managed::Unique;
use crate::model::names::field_name;
use crate::model::{Entity, IndexKind};

pub fn check(cx: &Ctxt, entity: &Entity) {
    one_role_per_field(cx, entity);
    one_field_per_role(cx, entity);
    roles_are_not_serde(cx, entity);
    managed_fields_stay_out_of_keys(cx, entity);
    unique_constraints_are_distinct(cx, entity);
    for unique in &entity.unique {
        no_repeated_unique_field(cx, entity, unique);
        unique_fields_are_not_serde(cx, entity, unique);
        unique_name_makes_a_lookup(cx, unique);
    }
    sentinels_need_a_string_partition_key(cx, entity);
}

/// The client writes one thing into a field: a timestamp is not a version,
/// and a generated id is never overwritten by a clock.
fn one_role_per_field(cx: &Ctxt, entity: &Entity) {
    for field in &entity.fields {
        let Some((first, _)) = field.managed.first() else {
            continue;
        };
        for (role, span) in &field.managed[1..] {
            cx.error_at(*span, format!(
                "field `{}` is already `{}`; the client writes one value into a field, so give `{}` its own field",
                field.ident, first.name(), role.name()
            ));
        }
    }
}

/// Two `updated_at` fields would be one value written twice, and two
/// versions two locks that cannot both be checked: each role is one field.
/// (Generated ids may be several.)
fn one_field_per_role(cx: &Ctxt, entity: &Entity) {
    let roles = entity.fields.iter().flat_map(|field| {
        field
            .managed
            .iter()
            .filter(|(role, _)| !matches!(role, ManagedRole::Generate(_)))
            .map(move |(role, span)| (field.ident, role.name(), *span))
    });
    one_field_each(cx, roles);
}

/// Each role in `roles` (the field, the role's name, its token) is held by
/// one field; a second is reported on its token.
pub(super) fn one_field_each<'a>(
    cx: &Ctxt,
    roles: impl Iterator<Item = (&'a syn::Ident, &'static str, proc_macro2::Span)>,
) {
    let mut seen: Vec<(&str, &syn::Ident)> = Vec::new();
    for (field, name, span) in roles {
        match seen.iter().find(|(n, _)| *n == name) {
            Some((_, earlier)) => cx.error_at(span, format!(
                "field `{earlier}` is already the entity's `{name}`; an entity has one, so remove this one"
            )),
            None => seen.push((name, field)),
        }
    }
}

/// The client writes managed fields as native attributes; a serde field is
/// stored as whatever its `Serialize` writes, which the client cannot
/// stamp, bump or fill.
fn roles_are_not_serde(cx: &Ctxt, entity: &Entity) {
    let roles = entity.fields.iter().filter(|f| f.serde).flat_map(|field| {
        (field.managed.iter()).map(move |(role, span)| (field.ident, role.name(), *span))
    });
    none_on_serde(cx, roles);
}

/// Reports each role in `roles` (on serde fields) on its token.
pub(super) fn none_on_serde<'a>(
    cx: &Ctxt,
    roles: impl Iterator<Item = (&'a syn::Ident, &'static str, proc_macro2::Span)>,
) {
    for (field, name, span) in roles {
        cx.error_at(
            span,
            format!(
                "`{name}` needs a field the client can write natively; remove `serde` from field `{field}`"
            ),
        );
    }
}

/// A table key holding `updated_at` would change on every write, so every
/// update would be a new item; an index key holding it would go stale, as
/// an update sets `updated_at` without the key's other composites; a
/// version in any key would move the item (or
/// its index entry) on every write. (`created_at` and generated ids never
/// change once written, so they may be composites.)
fn managed_fields_stay_out_of_keys(cx: &Ctxt, entity: &Entity) {
    let updated_at = entity.managed_field(|r| r == ManagedRole::UpdatedAt);
    let version = entity.managed_field(|r| r == ManagedRole::Version);
    let indexes = std::iter::once(&entity.primary).chain(&entity.indexes);
    for index in indexes {
        for (which, key) in index.keys() {
            if index.kind == IndexKind::Local && which == "pk" && !index.pk_written {
                continue; // the table's, reported there
            }
            for c in &key.composites {
                if Some(c.field) == updated_at && index.kind == IndexKind::Primary {
                    cx.error_at(c.token, format!(
                        "field `{}` is the `updated_at` timestamp, so it cannot be a composite of the table's {which}: the key would change on every write, making every update a new item",
                        field_name(entity, c.field)
                    ));
                } else if Some(c.field) == updated_at {
                    cx.error_at(c.token, format!(
                        "field `{}` is the `updated_at` timestamp, so it cannot be a composite of index `{}`: every update writes a new `updated_at`, and an update does not know the key's other composites to recompose it, so the index entry would go stale",
                        field_name(entity, c.field),
                        index.name
                    ));
                }
                if Some(c.field) == version {
                    cx.error_at(c.token, format!(
                        "field `{}` is the optimistic-lock `version`, so it cannot be a key composite: the key would change on every write",
                        field_name(entity, c.field)
                    ));
                }
            }
        }
    }
}

/// Two constraints on one set of fields would hold the same values twice,
/// and two with one name would share a lookup and a sentinel.
fn unique_constraints_are_distinct(cx: &Ctxt, entity: &Entity) {
    let fields_of = |u: &Unique| {
        let mut fields: Vec<usize> = u.fields.iter().map(|f| f.field).collect();
        fields.sort_unstable();
        fields.dedup();
        fields
    };
    for (i, unique) in entity.unique.iter().enumerate() {
        let earlier = &entity.unique[..i];
        if let Some(same) = earlier.iter().find(|e| e.name == unique.name) {
            cx.error_at(
                unique.name_span,
                format!(
                    "two unique constraints are named `{}`; give one another `name = \"...\"`",
                    same.name
                ),
            );
        } else if let Some(same) = earlier.iter().find(|e| fields_of(e) == fields_of(unique)) {
            cx.error_at(
                unique.span,
                format!(
                    "this constraint has the same fields as unique constraint `{}`; keep one",
                    same.name
                ),
            );
        }
    }
}

/// A field twice in one constraint adds nothing to it, and is almost always
/// a typo for another field.
fn no_repeated_unique_field(cx: &Ctxt, entity: &Entity, unique: &Unique) {
    for (i, f) in unique.fields.iter().enumerate() {
        if unique.fields[..i].iter().any(|e| e.field == f.field) {
            cx.error_at(
                f.token,
                format!(
                    "field `{}` appears twice in this unique constraint; name each field once",
                    field_name(entity, f.field)
                ),
            );
        }
    }
}

/// A sentinel holds the value as key text, which a serde field has none of.
fn unique_fields_are_not_serde(cx: &Ctxt, entity: &Entity, unique: &Unique) {
    for f in &unique.fields {
        if entity.fields[f.field].serde {
            cx.error_at(f.token, format!(
                "field `{}` is `#[entity(serde)]`, so it has no key text for a unique constraint; store it as a native key type",
                field_name(entity, f.field)
            ));
        }
    }
}

/// The constraint's name names its lookup (`by_<name>`).
fn unique_name_makes_a_lookup(cx: &Ctxt, unique: &Unique) {
    if crate::model::names::unique_lookup_name(unique).is_none() {
        cx.error_at(unique.name_span, format!(
            "unique constraint name `{}` cannot name its lookup `by_{}`: use letters, digits and `_`",
            unique.name, unique.name
        ));
    }
}

/// A constraint is kept by sentinel items in the entity's table whose
/// partition key is text naming the constraint and the value, which a
/// number-typed partition key cannot hold.
fn sentinels_need_a_string_partition_key(cx: &Ctxt, entity: &Entity) {
    if entity.primary.pk.number.is_none() {
        return;
    }
    if let Some(first) = entity.unique.first() {
        cx.error_at(first.span, "a unique constraint is kept by sentinel items whose partition key is text, and this table's partition key is a `number`: remove `number` from `#[pk(...)]`, or the constraint");
    }
}
