//! Names and sizes DynamoDB or the key format refuses, caught at compile
//! time instead of by the server (or never, where the result would be a
//! wrong key rather than an error).

use crate::ctxt::Ctxt;
use crate::model::{Entity, IndexKind, Piece};
use proc_macro2::Span;

/// DynamoDB's per-table limits on secondary indexes.
const MAX_GSIS: usize = 20;
const MAX_LSIS: usize = 5;
/// DynamoDB's limits on key sizes, in UTF-8 bytes.
const MAX_PK_BYTES: usize = 2048;
const MAX_SK_BYTES: usize = 1024;

pub fn check(cx: &Ctxt, entity: &Entity) {
    key_text_names(cx, entity);
    attribute_names(cx, entity);
    table_and_index_names(cx, entity);
    index_counts(cx, entity);
    casing_only_on_default_format(cx, entity);
    literal_key_lengths(cx, entity);
    no_largest_character_in_key_text(cx, entity);
}

/// Range bounds end at "the text, then U+10FFFF", above every key that
/// extends the text; that holds because no key holds U+10FFFF (values
/// escape it), so literal key text must not either.
fn no_largest_character_in_key_text(cx: &Ctxt, entity: &Entity) {
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        for (_, key) in index.keys() {
            let holds = key.pieces().iter().any(|p| match p {
                Piece::Text(text) => text.contains(char::MAX),
                Piece::Value(_) => false,
            });
            if holds {
                let span: Span = key.format.as_ref().map_or(key.span, |f| f.span());
                cx.error_at(span, "this key's literal text holds U+10FFFF, which range bounds rely on no key holding: remove it from the format, names and labels");
            }
        }
    }
}

/// The entity and schema names are key segments: `#` would split the key
/// differently on read, and an empty segment is no name at all.
fn key_text_names(cx: &Ctxt, entity: &Entity) {
    let named = [
        ("entity name", Some((&entity.name, entity.name_span))),
        (
            "schema name",
            entity.schema_span.map(|s| (&entity.schema, s)),
        ),
    ];
    for (what, value) in named {
        let Some((value, span)) = value else { continue };
        if let Some(problem) = segment_problem(value) {
            cx.error_at(
                span,
                format!("the {what} {problem}: it is a segment of every key"),
            );
        }
    }
}

fn segment_problem(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        Some("is empty; give it a name")
    } else if text.contains('#') {
        Some("contains the key separator `#`; remove it")
    } else {
        None
    }
}

/// Attribute names label key values (`taskid_`) in the default format, and
/// an empty attribute name is refused by DynamoDB.
fn attribute_names(cx: &Ctxt, entity: &Entity) {
    for field in &entity.fields {
        if let Some(problem) = segment_problem(&field.attribute) {
            cx.error_at(
                field.attribute_span,
                format!("the attribute name `{}` {problem}", field.attribute),
            );
        }
    }
    let keys = std::iter::once(&entity.primary)
        .chain(&entity.indexes)
        .flat_map(|index| index.keys().map(|(_, key)| key));
    for key in keys {
        if let Some(problem) = segment_problem(&key.attribute) {
            cx.error_at(
                key.span,
                format!("the key attribute name `{}` {problem}", key.attribute),
            );
        }
    }
}

/// Table and index names: 3 to 255 characters of `A-Z a-z 0-9 _ . -`, or
/// CreateTable and every request fail.
fn table_and_index_names(cx: &Ctxt, entity: &Entity) {
    if let Some(table) = &entity.table {
        if let Some(problem) = dynamodb_name_problem(&table.value()) {
            cx.error(table, format!("table name `{}` {problem}", table.value()));
        }
    }
    for index in &entity.indexes {
        let Some(physical) = &index.physical else {
            continue;
        };
        if let Some(problem) = dynamodb_name_problem(&physical.value()) {
            cx.error(
                physical,
                format!("index name `{}` {problem}", physical.value()),
            );
        }
    }
}

fn dynamodb_name_problem(name: &str) -> Option<String> {
    let len = name.chars().count();
    if !(3..=255).contains(&len) {
        return Some(format!("has {len} characters; DynamoDB takes 3 to 255"));
    }
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))?;
    Some(format!(
        "contains `{bad}`; DynamoDB takes only letters, digits, `_`, `.` and `-`"
    ))
}

/// A table takes at most 20 global and 5 local secondary indexes; more fail
/// at CreateTable.
fn index_counts(cx: &Ctxt, entity: &Entity) {
    for (kind, max, what) in [
        (IndexKind::Global, MAX_GSIS, "global"),
        (IndexKind::Local, MAX_LSIS, "local"),
    ] {
        let mut seen: Vec<String> = Vec::new();
        for index in entity.indexes.iter().filter(|i| i.kind == kind) {
            let Some(physical) = &index.physical else {
                continue;
            };
            if seen.contains(&physical.value()) {
                continue;
            }
            seen.push(physical.value());
            if seen.len() == max + 1 {
                cx.error(&index.name, format!(
                    "index `{}` is {what} secondary index number {}; a DynamoDB table has at most {max}",
                    physical.value(), max + 1
                ));
            }
        }
    }
}

/// Casing applies to the default format's structural text; a custom format
/// is written as it should be stored, so `casing` there would do nothing.
fn casing_only_on_default_format(cx: &Ctxt, entity: &Entity) {
    let keys = std::iter::once(&entity.primary)
        .chain(&entity.indexes)
        .flat_map(|index| index.keys().map(|(_, key)| key));
    for key in keys {
        if let (Some(span), Some(_)) = (key.casing_written, &key.format) {
            cx.error_at(span, "`casing` does nothing on a key with a custom `format`, which is stored as written: remove it, or write the format in the casing you want");
        }
    }
}

/// A key whose literal text alone passes DynamoDB's size limit can never be
/// written.
fn literal_key_lengths(cx: &Ctxt, entity: &Entity) {
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        for (which, key) in index.keys() {
            let max = if which == "pk" {
                MAX_PK_BYTES
            } else {
                MAX_SK_BYTES
            };
            let literal: usize = key
                .pieces()
                .iter()
                .map(|p| match p {
                    Piece::Text(text) => text.len(),
                    Piece::Value(_) => 0,
                })
                .sum();
            if literal > max {
                let span: Span = key.format.as_ref().map_or(key.span, |f| f.span());
                cx.error_at(span, format!(
                    "this key's literal text is {literal} bytes; DynamoDB keys hold at most {max} bytes ({which})"
                ));
            }
        }
    }
}
