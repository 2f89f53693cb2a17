//! Stage 1a: attributes into raw values that keep their tokens for spans.
//! Syntax errors, unknown keys and keys given twice are reported here, by
//! the value parsers every derive shares; meaning is checked later.

mod collection;
mod entity;
mod key_part;
mod lifecycle;

pub use collection::{read_collection, PkField};
pub use entity::*;
pub use key_part::{read_key_part_container, read_variant_rename};
pub use lifecycle::{LifecycleRole, RawHistory, RawSoftDelete};

use crate::ctxt::{did_you_mean, Ctxt};
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::LitStr;

/// The key's name as written (`schema` in `schema = "x"`).
pub fn key_name(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default()
}

/// Stores a value read for `meta`'s key, refusing a second one: with two,
/// silently keeping either would be a guess.
pub fn set_once<T>(cx: &Ctxt, meta: &ParseNestedMeta, slot: &mut Option<T>, value: Option<T>) {
    let Some(value) = value else { return };
    if slot.is_some() {
        let name = key_name(meta);
        cx.error(
            &meta.path,
            format!("`{name}` is given twice; keep one `{name}`"),
        );
        return;
    }
    *slot = Some(value);
}

/// Sets a flag key (`serde`, `clustered`), refusing it twice.
pub fn set_flag(cx: &Ctxt, meta: &ParseNestedMeta, slot: &mut Option<Span>) {
    set_once(
        cx,
        meta,
        slot,
        Some(
            meta.path
                .get_ident()
                .map_or_else(Span::call_site, syn::Ident::span),
        ),
    );
}

/// Reports an unknown key and skips its value, so later keys are still read.
pub fn unknown(cx: &Ctxt, meta: &ParseNestedMeta, what: &str, known: &[&str]) -> syn::Result<()> {
    let name = key_name(meta);
    cx.syn_error(meta.error(format!(
        "unknown {what} key `{name}`{}; the keys are: {}",
        did_you_mean(&name, known.iter().copied()),
        known.join(", ")
    )));
    skip_value(meta)
}

/// Consumes `= value` or `(...)` after a key.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}

/// A string value; anything else is reported.
pub fn string(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    if let Some(lit) = lit_str(&expr) {
        return Ok(Some(lit.clone()));
    }
    let name = key_name(meta);
    cx.error(
        &expr,
        format!("`{name}` takes a string, such as `{name} = \"...\"`"),
    );
    Ok(None)
}

/// A string literal expression.
pub fn lit_str(expr: &syn::Expr) -> Option<&LitStr> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Some(lit),
        _ => None,
    }
}

/// One string or an array of strings: a collection path.
pub fn string_path(expr: &syn::Expr) -> Option<Vec<String>> {
    let path: Option<Vec<String>> = match expr {
        syn::Expr::Array(array) => array
            .elems
            .iter()
            .map(|e| lit_str(e).map(LitStr::value))
            .collect(),
        other => lit_str(other).map(|s| vec![s.value()]),
    };
    path.filter(|p| !p.is_empty())
}

/// A `u32` value; anything else is reported.
pub fn number(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(u32, Span)>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    let parsed = match &expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => lit.base10_parse::<u32>().ok().map(|v| (v, lit.span())),
        _ => None,
    };
    if parsed.is_none() {
        let name = key_name(meta);
        cx.error(
            &expr,
            format!("`{name}` is a whole number from 0 to 4294967295, such as `{name} = 1`"),
        );
    }
    Ok(parsed)
}

/// `crate = "::path"`: where generated code finds the runtime crate.
pub fn crate_path(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<syn::Path>> {
    let Some(lit) = string(cx, meta)? else {
        return Ok(None);
    };
    match lit.parse::<syn::Path>() {
        Ok(path) => Ok(Some(path)),
        Err(_) => {
            cx.error(
                &lit,
                "`crate` is the path of the runtime crate, such as `crate = \"::entity_client\"`",
            );
            Ok(None)
        }
    }
}

/// Parses every `#[name(...)]` attribute with `read`, reporting syntax
/// errors; returns whether any error was reported while reading.
pub fn each_attribute(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    name: &str,
    mut read: impl FnMut(&ParseNestedMeta) -> syn::Result<()>,
) -> bool {
    let before = cx.error_count();
    for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
        if let Err(e) = attr.parse_nested_meta(|meta| read(&meta)) {
            cx.syn_error(e);
        }
    }
    cx.error_count() > before
}
