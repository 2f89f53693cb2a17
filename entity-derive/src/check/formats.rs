//! The key language's rules: every format parses back one way, `unpadded`
//! is for integers, derived parts for timestamps, and a number-typed key
//! holds one integer.

use crate::ctxt::Ctxt;
use crate::model::stops::{is_integer, is_timestamp};
use crate::model::{Entity, Key, Piece};

pub fn check(cx: &Ctxt, entity: &Entity) {
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        for (_, key) in index.keys() {
            if let (Some(number), Some(_)) = (key.number, &index.collection) {
                // Collection members share one string partition key.
                cx.error_at(number, "a collection index composes its keys in the collection layout, as strings: remove `number`");
            }
            unambiguous(cx, entity, key);
            unpadded_integers(cx, entity, key);
            derived_timestamps(cx, entity, key);
            number_key(cx, entity, key);
        }
    }
}

/// Text after a field must end the value unambiguously, or parsing a key
/// could give back values other than those composed.
fn unambiguous(cx: &Ctxt, entity: &Entity, key: &Key) {
    let Some(format) = &key.format else { return };
    for (k, c) in key.composites.iter().enumerate() {
        if let Err(ambiguous) = key.stop_after(&entity.fields, k) {
            let field = entity.fields[c.field].ident;
            let stop = ambiguous.stop;
            cx.error(format, format!(
                "ambiguous key format: `{stop}` after `{{{field}}}` may be part of `{field}`'s value and of what follows it in the segment, so a key could not be parsed back; follow `{{{field}}}` with `#` or with a character that nothing after it in the segment can hold"
            ));
        }
    }
}

/// Plain decimal is defined for integers only.
fn unpadded_integers(cx: &Ctxt, entity: &Entity, key: &Key) {
    let Some(format) = &key.format else { return };
    for c in key.composites.iter().filter(|c| c.unpadded) {
        let field = &entity.fields[c.field];
        if key.number.is_none() && !is_integer(field) {
            let name = field.ident;
            cx.error(format, format!(
                "`{{{name}:unpadded}}` needs an integer field: only integers have a plain decimal form; write `{{{name}}}`"
            ));
        }
    }
}

/// A derived part is a bucket of an instant (`{t:month}`); other types have
/// no such bucket.
fn derived_timestamps(cx: &Ctxt, entity: &Entity, key: &Key) {
    let Some(format) = &key.format else { return };
    for c in &key.composites {
        let (Some(unit), field) = (c.bucket, &entity.fields[c.field]) else {
            continue;
        };
        if !is_timestamp(field) {
            let (name, ty, unit) = (field.ident, &field.key_ty, unit.name());
            let ty = quote::quote!(#ty).to_string();
            cx.error(format, format!(
                "`{{{name}:{unit}}}` needs a timestamp field (`chrono::DateTime<Utc>` or `time::OffsetDateTime`), but `{name}` is a `{ty}`: a derived part writes the {unit} of an instant; write `{{{name}}}`"
            ));
        }
    }
}

/// An `N` attribute holds one number: the key is exactly one integer
/// composite with no text around it.
fn number_key(cx: &Ctxt, entity: &Entity, key: &Key) {
    let Some(number) = key.number else { return };
    let pieces = key.pieces();
    if key.composites.len() != 1 || pieces.len() != 1 {
        cx.error_at(number, format!(
            "a `number` key is stored as a DynamoDB number, so it holds exactly one integer field and no text; this key has {} field(s){}: remove `number`, or key on one integer field alone, such as `#[pk(user_id, number)]`",
            key.composites.len(),
            if pieces.iter().any(|p| matches!(p, Piece::Text(_))) { " and text" } else { "" }
        ));
        return;
    }
    let field = &entity.fields[key.composites[0].field];
    if !is_integer(field) {
        let (name, ty) = (field.ident, &field.key_ty);
        let ty = quote::quote!(#ty).to_string();
        cx.error_at(number, format!(
            "a `number` key is stored as a DynamoDB number, but `{name}` is a `{ty}`: remove `number`, or use an integer field"
        ));
    }
}
