//! Rules for multi-attribute GSI keys (`multi_attribute`, `pk(a, b)`,
//! `sk(c, d)`). A field's type is checked by the compiler (`NativeKey`), on
//! the field's name in the key.

use crate::ctxt::Ctxt;
use crate::model::multi_attribute::MultiAttribute;
use crate::model::Entity;

/// DynamoDB's limit on each side of a multi-attribute key schema.
const MAX_ATTRIBUTES: usize = 4;

pub fn check(cx: &Ctxt, entity: &Entity) {
    for index in &entity.indexes {
        let Some(multi) = &index.multi_attribute else {
            continue;
        };
        has_a_partition(cx, multi);
        within_limits(cx, multi);
        no_key_text_options(cx, multi);
        no_repeated_attribute(cx, entity, multi);
        if let Some(collection) = multi.collection {
            // Collection members share a composed partition key; a native key
            // holds one field's value per attribute, with no entity segment.
            cx.error_at(
                collection,
                "a multi-attribute index cannot be a collection: collection keys are composed strings; use a composed key, or drop `collection`",
            );
        }
    }
}

/// A key schema needs a `HASH` attribute.
fn has_a_partition(cx: &Ctxt, multi: &MultiAttribute) {
    // A refused `format` lists no fields: that error is enough.
    if multi.pk.is_empty() && multi.refused_options.is_empty() {
        cx.error_at(
            multi.pk_span,
            "a multi-attribute key needs at least one partition attribute: `pk(tenant_id, ...)`",
        );
    }
}

/// DynamoDB takes at most four partition and four sort attributes; the
/// error is on the first one too many.
fn within_limits(cx: &Ctxt, multi: &MultiAttribute) {
    for (attributes, which) in [(&multi.pk, "partition"), (&multi.sk, "sort")] {
        if let Some(extra) = attributes.get(MAX_ATTRIBUTES) {
            cx.error_at(
                extra.token,
                format!("a multi-attribute key has at most {MAX_ATTRIBUTES} {which} attributes (DynamoDB's limit); this is number {}", MAX_ATTRIBUTES + 1),
            );
        }
    }
}

/// `format`, `casing`, `attr`, `number` and `value_casing` shape composed
/// key text and name its attribute; a native key attribute is the field's
/// own attribute, stored as its own type.
fn no_key_text_options(cx: &Ctxt, multi: &MultiAttribute) {
    for (span, option) in &multi.refused_options {
        cx.error_at(
            *span,
            format!("`{option}` shapes a composed key; a multi-attribute key stores each field as its own attribute (rename it with `#[entity(rename = \"...\")]` on the field)"),
        );
    }
}

/// DynamoDB refuses an attribute twice in one key schema.
fn no_repeated_attribute(cx: &Ctxt, entity: &Entity, multi: &MultiAttribute) {
    let mut seen = Vec::new();
    for (attribute, _) in multi.attributes() {
        if seen.contains(&attribute.field) {
            let name = entity.fields[attribute.field].ident;
            cx.error_at(
                attribute.token,
                format!("`{name}` is already an attribute of this key: a key schema names each attribute once"),
            );
        }
        seen.push(attribute.field);
    }
}
