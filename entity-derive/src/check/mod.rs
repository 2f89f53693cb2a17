//! Stage 2: the rules. Each reads only the model and says why it exists;
//! errors land on the offending token. `#[derive(Entity)]`'s rules are
//! here and in `names` (generated names), `limits` (DynamoDB's limits) and
//! `managed` (managed fields, unique constraints), `lifecycle` (ttl, soft
//! delete, history), `compress` (compressed fields);
//! the other derives' rules are in their own files.

pub mod collection;
mod compress;
mod encrypt;
mod formats;
pub mod key_part;
mod lifecycle;
mod limits;
mod managed;
mod multi_attribute;
mod names;
pub mod projection;
mod sharding;
mod tenant;

use crate::ctxt::Ctxt;
use crate::model::{Entity, Index, IndexKind, Key};
use quote::quote;
use std::collections::HashMap;
use syn::LitStr;

pub use names::Skipped;

/// The attributes holding the entity name and version in every item unless
/// the entity names others:
/// `entity_core::__private::{IDENTITY_ATTRIBUTE, VERSION_ATTRIBUTE}`, which
/// the generated code uses (the derive cannot depend on the runtime; a test
/// in `tests/tests/hygiene.rs` pins the two to each other).
const IDENTITY_ATTRIBUTE: &str = "__entity";
const VERSION_ATTRIBUTE: &str = "__version";

/// Checks the entity; returns what the fallback expansion must leave out
/// (generated items whose names collide).
pub fn check(cx: &Ctxt, entity: &Entity) -> Skipped {
    composite_types(cx, entity);
    collection_rules(cx, entity);
    limits::check(cx, entity);
    multi_attribute::check(cx, entity);
    projection::check(cx, entity);
    formats::check(cx, entity);
    no_repeated_composite(cx, entity);
    policy_needs_composed_keys(cx, entity);
    unique_index_names(cx, entity);
    one_shape_per_physical_index(cx, entity);
    local_indexes_share_the_table_partition(cx, entity);
    identity_attributes_are_usable(cx, entity);
    no_value_casing_in_collections(cx, entity);
    key_attributes_are_distinct(cx, entity);
    field_attributes_are_distinct(cx, entity);
    managed::check(cx, entity);
    sharding::check(cx, entity);
    lifecycle::check(cx, entity);
    tenant::check(cx, entity);
    compress::check(cx, entity);
    encrypt::check(cx, entity);
    names::check(cx, entity)
}

/// Refuses, with a reason, the types that are certainly not keys. Other
/// types are checked by the compiler (`KeyPart`), once, on the field. An
/// `Option<T>` composite makes a secondary index sparse (the item is in it
/// only while the value is `Some`); every item has its table key, so a
/// table key composite (an LSI's partition key is the table's) cannot be
/// optional.
fn composite_types(cx: &Ctxt, entity: &Entity) {
    for index in all_indexes(entity) {
        for (which, key) in index.keys() {
            // An LSI's partition key is the table's, checked there (a
            // written one that is not the table's is refused as such).
            let lsi_pk = index.kind == IndexKind::Local && which == "pk";
            if lsi_pk && !index.pk_written {
                continue;
            }
            for c in &key.composites {
                // A `ttl` or `deleted_at` composite is refused by its role
                // (`lifecycle`), whatever its type: one error, saying why.
                if !entity.fields[c.field].lifecycle.is_empty() {
                    continue;
                }
                let field = &entity.fields[c.field];
                let ty = field.ty;
                let ty = quote!(#ty).to_string().replace(' ', "");
                let message = if field.optional && index.kind == IndexKind::Primary {
                    format!("`{}: {ty}` cannot be a table key composite: every item must have its table key, so its composites cannot be `None`; an `Option` composite belongs in a secondary index key, which leaves out the items where it is `None` (a sparse index)", field.ident)
                } else if field.optional && lsi_pk {
                    continue;
                } else if let Some(reason) = not_a_key_type(field) {
                    format!(
                        "`{}: {ty}` cannot be a key composite: {reason}",
                        field.ident
                    )
                } else {
                    continue;
                };
                cx.error_at(c.token, message);
            }
        }
    }
}

/// Whether `which` key of `index` is the table's key (an LSI's partition
/// key is).
pub fn is_table_key(kind: IndexKind, which: &str) -> bool {
    kind == IndexKind::Primary || (kind == IndexKind::Local && which == "pk")
}

/// Whether the checks refuse this field as a composite of a table key
/// (`table_key`) or of a secondary index key.
pub fn refuses_composite(field: &crate::model::Field, table_key: bool) -> bool {
    not_a_key_type(field).is_some() || (field.optional && table_key)
}

/// Why the field's key type (`T` of an `Option<T>`) is not a key.
fn not_a_key_type(field: &crate::model::Field) -> Option<&'static str> {
    Some(match crate::model::type_name(field.key_ty).as_deref() {
        Some("f32" | "f64") => "floats have no exact, ordered key text; store an integer (cents, micro-units) instead",
        Some("Option") => "an optional composite holds one `Option` (the item is left out of the index while it is `None`): its inner type must be a key type",
        Some("Vec" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" | "VecDeque") => {
            "a collection cannot be a composite; compose the key from scalar fields"
        }
        Some("Box" | "Rc" | "Arc" | "Cow") => "use the inner type itself as the field type",
        Some("&") => "a reference cannot be a composite; use an owned type",
        Some("()") => "a tuple cannot be a composite; use one field per composite",
        // DynamoDB numbers hold 38 digits; these types reach 39, so the
        // field itself (stored as a number) could fail to write.
        Some("u128" | "i128") if !field.wide_int => "its values reach 39 digits and DynamoDB numbers hold 38, so large values would fail to write; use `u64`/`i64`, or add `#[entity(wide_int)]` to the field to accept that",
        _ => return None,
    })
}

/// Seed 002's collection layouts put the collection in the composed keys;
/// an isolated collection may also compose them from custom formats (seed
/// 001), on an index or on the table's keys.
fn collection_rules(cx: &Ctxt, entity: &Entity) {
    for index in all_indexes(entity) {
        let name = &index.name;
        let Some(collection) = &index.collection else {
            // A layout describes a collection; alone it would do nothing.
            if let Some(span) = index.layout_written {
                cx.error_at(span, "`clustered` and `isolated` describe a collection: add `collection = \"...\"`, or remove it");
            }
            continue;
        };
        // Sub-collections nest in the sort key below their parent.
        if collection.path.len() > 1 && !collection.clustered {
            cx.error_at(collection.span, format!(
                "`{}` is a sub-collection, which nests in the sort key below its parent: add `clustered` to this index",
                collection.path.join(" > ")
            ));
        }
        // Members are told apart by the sort key prefix.
        if index.sk.is_none() {
            let message = if index.kind == IndexKind::Primary {
                "the table's keys join a collection, so they need a sort key: add `#[sk(...)]` (it may list no fields)".to_owned()
            } else {
                format!("index `{name}` joins a collection, so it needs a sort key: add `sk(...)` (it may list no fields)")
            };
            cx.error_at(collection.span, message);
        }
        // The clustered layout writes the collection above the entity in the
        // sort key; a custom format would contradict it. An isolated
        // collection's keys may have any format: the union checks their text.
        let custom = index.keys().find_map(|(_, k)| k.format.as_ref());
        if let (Some(format), true) = (custom, collection.clustered) {
            cx.error(format, "a clustered collection composes its keys in the collection layout: remove `format = \"...\"`, or make the collection isolated (the default) to keep the format");
        }
    }
}

fn all_indexes<'e>(entity: &'e Entity) -> impl Iterator<Item = &'e Index> {
    std::iter::once(&entity.primary).chain(&entity.indexes)
}

/// An index policy says how updates keep composed keys from going stale; a
/// multi-attribute index reads the fields' own attributes, so it has no
/// composed key and the policy would do nothing.
fn policy_needs_composed_keys(cx: &Ctxt, entity: &Entity) {
    for index in &entity.indexes {
        if let (Some(span), Some(_)) = (index.policy_written, &index.multi_attribute) {
            cx.error_at(span, format!(
                "`policy` does nothing on multi-attribute index `{}`: its keys are the fields' own attributes, which never go stale, so each field can be set alone already; remove `policy`",
                index.name
            ));
        }
    }
}

/// A field twice in one key adds nothing to the key but length, and is
/// almost always a typo for another field.
fn no_repeated_composite(cx: &Ctxt, entity: &Entity) {
    for index in all_indexes(entity) {
        for (which, key) in index.keys() {
            if index.kind == IndexKind::Local && which == "pk" && !index.pk_written {
                continue;
            }
            for (i, c) in key.composites.iter().enumerate() {
                if key.composites[..i]
                    .iter()
                    .any(|earlier| earlier.field == c.field)
                {
                    let field = entity.fields[c.field].ident;
                    cx.error_at(c.token, format!("field `{field}` appears twice in this key; each field can be a composite once"));
                }
            }
        }
    }
}

/// Logical names name the query accessors (`Task::by_project`), so two
/// indexes with one name would be one method.
fn unique_index_names(cx: &Ctxt, entity: &Entity) {
    let mut seen: Vec<&syn::Ident> = vec![&entity.primary.name];
    for index in &entity.indexes {
        if seen.iter().any(|name| **name == index.name) {
            let hint = if index.name == "primary" {
                "`primary` is the table's own accessor; pick another name".to_owned()
            } else {
                "each index needs its own logical name, which names its accessor".to_owned()
            };
            cx.error(
                &index.name,
                format!("duplicate index name `{}`: {hint}", index.name),
            );
        }
        seen.push(&index.name);
    }
}

/// A physical index has one key schema, and an item holds one value per key
/// attribute: two logical indexes on one physical index must agree on both.
fn one_shape_per_physical_index(cx: &Ctxt, entity: &Entity) {
    let mut first: HashMap<String, &Index> = HashMap::new();
    for index in &entity.indexes {
        let Some(physical) = index.physical.as_ref().map(syn::LitStr::value) else {
            continue;
        };
        let Some(earlier) = first.get(&physical) else {
            first.insert(physical, index);
            continue;
        };
        match (&earlier.sk, &index.sk) {
            (None, Some(sk)) => {
                cx.error_at(sk.span, format!(
                    "index `{physical}` has no sort key (as declared by `{}`), so `{}` cannot have `sk(...)`; remove it, or give `{}` the same `sk(...)`",
                    earlier.name, index.name, earlier.name
                ));
                continue;
            }
            (Some(_), None) => {
                cx.error(&index.name, format!(
                    "index `{physical}` has a sort key (declared by `{}`); give `{}` an `sk(...)` with the same attribute",
                    earlier.name, index.name
                ));
                continue;
            }
            _ => {}
        }
        let same_attributes = earlier.pk.attribute == index.pk.attribute
            && earlier.sk.as_ref().map(|k| &k.attribute) == index.sk.as_ref().map(|k| &k.attribute);
        if !same_attributes {
            cx.error(&index.name, format!(
                "index `{physical}` is declared by `{}` with key attributes {} and by `{}` with {}; a physical index has one key schema",
                earlier.name, describe(earlier), index.name, describe(index)
            ));
        } else if !same_keys(earlier, index) {
            cx.error(&index.name, format!(
                "`{}` and `{}` both write index `{physical}` with different key values; an item holds one key per index, so merge them into one index",
                earlier.name, index.name
            ));
        }
    }
}

fn describe(index: &Index) -> String {
    match &index.sk {
        Some(sk) => format!("`{}`/`{}`", index.pk.attribute, sk.attribute),
        None => format!("`{}` (no sort key)", index.pk.attribute),
    }
}

fn same_key(a: &Key, b: &Key) -> bool {
    a.attribute == b.attribute
        && a.segments == b.segments
        && a.composites
            .iter()
            .map(|c| c.field)
            .eq(b.composites.iter().map(|c| c.field))
}

fn same_keys(a: &Index, b: &Index) -> bool {
    same_key(&a.pk, &b.pk)
        && match (&a.sk, &b.sk) {
            (Some(x), Some(y)) => same_key(x, y),
            (None, None) => true,
            _ => false,
        }
}

/// An LSI is keyed on the table's partition key with another sort key, so it
/// needs the table to have a sort key and cannot have a partition key of its
/// own.
fn local_indexes_share_the_table_partition(cx: &Ctxt, entity: &Entity) {
    for index in entity.indexes.iter().filter(|i| i.kind == IndexKind::Local) {
        if index.pk_written && !same_key(&index.pk, &entity.primary.pk) {
            cx.error_at(index.pk.span, format!(
                "local index `{}` must use the table's partition key (`{}` = {}); remove its `pk(...)` or make it the same",
                index.name, entity.primary.pk.attribute, entity.primary.pk.template(&entity.fields)
            ));
        }
        if entity.primary.sk.is_none() {
            cx.error(&index.name, format!(
                "local index `{}` needs a table with a sort key: add `#[sk(...)]` to the entity", index.name
            ));
        }
        match &index.sk {
            None => cx.error(&index.name, format!(
                "local index `{}` needs its own sort key: add `sk(field, ...)`", index.name
            )),
            Some(sk) if entity.primary.sk.as_ref().is_some_and(|t| t.attribute == sk.attribute) => cx.error_at(
                sk.span,
                format!("local index `{}` needs a sort key attribute other than the table's `{}`: set `sk(attr = \"...\", ...)`", index.name, sk.attribute),
            ),
            Some(_) => {}
        }
    }
}

/// Each key attribute holds one value per item: two keys that write the same
/// attribute must compose the same value, and no field may be stored under a
/// key or identity attribute.
fn key_attributes_are_distinct(cx: &Ctxt, entity: &Entity) {
    let mut written: Vec<(&str, &Index, &Key)> = Vec::new();
    for index in all_indexes(entity) {
        sort_key_is_not_partition_key(cx, index);
        for (which, key) in index.keys() {
            let lsi_reuses_table_sk = index.kind == IndexKind::Local
                && which == "sk"
                && entity
                    .primary
                    .sk
                    .as_ref()
                    .is_some_and(|t| t.attribute == key.attribute);
            if lsi_reuses_table_sk {
                continue; // reported by the local index rule
            }
            write_key_attribute(cx, &mut written, index, key);
        }
    }
    fields_avoid_key_attributes(cx, entity, &written);
    for (attribute, _, key) in &written {
        if is_reserved(entity, attribute) {
            cx.error_at(key.span, format!(
                "attribute `{attribute}` is reserved for the entity's identity; give this key another `attr = \"...\"`"
            ));
        }
    }
}

fn sort_key_is_not_partition_key(cx: &Ctxt, index: &Index) {
    if let Some(sk) = &index.sk {
        if sk.attribute == index.pk.attribute {
            cx.error_at(
                sk.span,
                format!(
                    "the sort key attribute `{}` is also the partition key attribute",
                    sk.attribute
                ),
            );
        }
    }
}

/// Records the attribute `key` writes, unless an earlier key writes it: then
/// both must compose the same value (or be the same physical index's).
fn write_key_attribute<'e>(
    cx: &Ctxt,
    written: &mut Vec<(&'e str, &'e Index, &'e Key)>,
    index: &'e Index,
    key: &'e Key,
) {
    match written
        .iter()
        .find(|(attribute, _, _)| *attribute == key.attribute)
    {
        Some((_, other, earlier))
            if !same_key(earlier, key) && other.physical != index.physical =>
        {
            cx.error_at(key.span, format!(
                "attribute `{}` is already written by `{}` with another value; give this key its own attribute with `attr = \"...\"`",
                key.attribute, other.name
            ));
        }
        Some(_) => {}
        None => written.push((&key.attribute, index, key)),
    }
}

/// No field is stored under a key attribute or an identity attribute.
fn fields_avoid_key_attributes(cx: &Ctxt, entity: &Entity, written: &[(&str, &Index, &Key)]) {
    for field in &entity.fields {
        let clash = written
            .iter()
            .find(|(attribute, _, _)| *attribute == field.attribute);
        if let Some((attribute, index, _)) = clash {
            cx.error(field.ident, format!(
                "field `{}` would be stored in attribute `{attribute}`, which holds a key of `{}`; rename it with `#[entity(rename = \"...\")]`",
                field.ident, index.name
            ));
        } else if is_reserved(entity, &field.attribute) {
            cx.error_at(field.attribute_span, format!(
                "attribute `{}` is reserved for the entity's identity; rename the field with `#[entity(rename = \"...\")]`",
                field.attribute
            ));
        }
    }
}

/// Every item carries its entity name and version in these attributes.
fn is_reserved(entity: &Entity, attribute: &str) -> bool {
    attribute == identity_attribute(entity) || attribute == version_attribute(entity)
}

fn identity_attribute(entity: &Entity) -> String {
    entity
        .identity_attribute
        .as_ref()
        .map_or_else(|| IDENTITY_ATTRIBUTE.to_owned(), LitStr::value)
}

fn version_attribute(entity: &Entity) -> String {
    entity
        .version_attribute
        .as_ref()
        .map_or_else(|| VERSION_ATTRIBUTE.to_owned(), LitStr::value)
}

/// The identity and version attributes hold one value each in every item:
/// they need a name, and two different ones.
fn identity_attributes_are_usable(cx: &Ctxt, entity: &Entity) {
    let named = [
        (
            "identity_attribute",
            &entity.identity_attribute,
            IDENTITY_ATTRIBUTE,
        ),
        (
            "version_attribute",
            &entity.version_attribute,
            VERSION_ATTRIBUTE,
        ),
    ];
    for (key, lit, default) in named {
        if let Some(lit) = lit.as_ref().filter(|lit| lit.value().is_empty()) {
            cx.error(lit, format!(
                "`{key}` cannot be empty: name the attribute, or leave `{key}` out for the default `{default}`"
            ));
        }
    }
    if identity_attribute(entity) == version_attribute(entity) {
        let lit = entity
            .version_attribute
            .as_ref()
            .or(entity.identity_attribute.as_ref());
        if let Some(lit) = lit {
            cx.error(lit, format!(
                "the entity name and the version would both be stored in attribute `{}`; give `identity_attribute` and `version_attribute` different names",
                lit.value()
            ));
        }
    }
}

/// A collection query composes its partition key from the collection's
/// declared fields, without folding them, so a member whose key folds
/// values would not be found.
fn no_value_casing_in_collections(cx: &Ctxt, entity: &Entity) {
    for index in all_indexes(entity).filter(|i| i.collection.is_some()) {
        for (_, key) in index.keys() {
            if let Some((_, span)) = key.value_casing {
                cx.error_at(span, format!(
                    "`value_casing` is not supported on a collection's keys (`{}`): collection queries compose the partition key unfolded; remove it, or use an index without `collection`",
                    index.name
                ));
            }
        }
    }
}

/// Two fields stored under one attribute name would overwrite each other.
fn field_attributes_are_distinct(cx: &Ctxt, entity: &Entity) {
    for (i, field) in entity.fields.iter().enumerate() {
        if let Some(earlier) = entity.fields[..i]
            .iter()
            .find(|f| f.attribute == field.attribute)
        {
            cx.error(
                field.ident,
                format!(
                    "fields `{}` and `{}` are both stored as attribute `{}`",
                    earlier.ident, field.ident, field.attribute
                ),
            );
        }
    }
}
