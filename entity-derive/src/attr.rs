//! Stage 1a: read `#[entity]`, `#[pk]`, `#[sk]`, `#[index]` and field
//! attributes into raw values that keep their tokens for spans. Syntax errors
//! and unknown keys are reported here; meaning is checked later.

use crate::ctxt::{did_you_mean, Ctxt};
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Ident, LitStr};

/// How structural key text (schema, entity and attribute names) is cased.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Casing {
    Lower,
    Upper,
    Preserve,
}

impl Casing {
    pub fn apply(self, text: &str) -> String {
        match self {
            Casing::Lower => text.to_lowercase(),
            Casing::Upper => text.to_uppercase(),
            Casing::Preserve => text.to_owned(),
        }
    }
}

/// `#[entity(rename_all = "...")]`: how field names become attribute names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    CamelCase,
    PascalCase,
    SnakeCase,
    ScreamingSnakeCase,
    KebabCase,
    Lowercase,
    Uppercase,
}

impl RenameRule {
    const NAMES: [&'static str; 7] = [
        "camelCase",
        "PascalCase",
        "snake_case",
        "SCREAMING_SNAKE_CASE",
        "kebab-case",
        "lowercase",
        "UPPERCASE",
    ];

    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "camelCase" => Self::CamelCase,
            "PascalCase" => Self::PascalCase,
            "snake_case" => Self::SnakeCase,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnakeCase,
            "kebab-case" => Self::KebabCase,
            "lowercase" => Self::Lowercase,
            "UPPERCASE" => Self::Uppercase,
            _ => return None,
        })
    }

    /// Renames a snake_case field name.
    pub fn apply(self, field: &str) -> String {
        let pascal = || -> String {
            field
                .split('_')
                .filter(|w| !w.is_empty())
                .map(|w| {
                    let mut chars = w.chars();
                    chars
                        .next()
                        .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                        .unwrap_or_default()
                })
                .collect()
        };
        match self {
            Self::SnakeCase => field.to_owned(),
            Self::PascalCase => pascal(),
            Self::CamelCase => {
                let p = pascal();
                let mut chars = p.chars();
                chars
                    .next()
                    .map(|c| c.to_lowercase().chain(chars).collect())
                    .unwrap_or_default()
            }
            Self::ScreamingSnakeCase => field.to_uppercase(),
            Self::KebabCase => field.replace('_', "-"),
            Self::Lowercase => field.replace('_', ""),
            Self::Uppercase => field.replace('_', "").to_uppercase(),
        }
    }
}

#[derive(Default)]
pub struct RawEntity {
    /// `#[entity(...)]` had an error: checks that depend on it stay quiet.
    pub entity_errors: bool,
    /// A `#[pk]` attribute was written (even if it failed to parse).
    pub pk_written: bool,
    pub name: Option<LitStr>,
    pub schema: Option<LitStr>,
    pub schema_version: Option<(u32, Span)>,
    pub version: Option<(u32, Span)>,
    pub table: Option<LitStr>,
    pub casing: Option<Casing>,
    pub rename_all: Option<RenameRule>,
    pub krate: Option<syn::Path>,
    pub pk: Option<RawKey>,
    pub sk: Option<RawKey>,
    pub indexes: Vec<RawIndex>,
}

pub struct RawKey {
    /// The `pk`/`sk` token.
    pub span: Span,
    pub attribute: Option<LitStr>,
    pub composites: Vec<Ident>,
    pub format: Option<LitStr>,
    pub casing: Option<Casing>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawIndexKind {
    Global,
    Local,
}

pub struct RawIndex {
    /// The logical name, which names the accessor.
    pub name: Ident,
    /// Reading it reported errors: follow-on checks stay quiet.
    pub had_errors: bool,
    pub physical: Option<(RawIndexKind, LitStr)>,
    pub pk: Option<RawKey>,
    pub sk: Option<RawKey>,
    pub casing: Option<Casing>,
    /// `collection = "name"` or `collection = ["parent", "child"]`.
    pub collection: Option<(Vec<String>, Span)>,
    /// `clustered` or `isolated`, where written.
    pub clustered: Option<(bool, Span)>,
}

#[derive(Default)]
pub struct RawField {
    pub rename: Option<LitStr>,
    pub serde: bool,
}

const ENTITY_KEYS: [&str; 8] = [
    "name",
    "schema",
    "schema_version",
    "version",
    "table",
    "casing",
    "rename_all",
    "crate",
];
const KEY_KEYS: [&str; 3] = ["attr", "format", "casing"];
const INDEX_KEYS: [&str; 8] = [
    "gsi",
    "lsi",
    "pk",
    "sk",
    "casing",
    "collection",
    "clustered",
    "isolated",
];
const FIELD_KEYS: [&str; 2] = ["rename", "serde"];

/// Reports an unknown key and skips its value, so later keys are still read.
fn unknown(cx: &Ctxt, meta: &ParseNestedMeta, what: &str, known: &[&str]) -> syn::Result<()> {
    let name = meta
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    cx.syn_error(meta.error(format!(
        "unknown {what} key `{name}`{}; the keys are: {}",
        did_you_mean(&name, known.iter().copied()),
        known.join(", ")
    )));
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.input.peek(syn::Token![=]) {
                let _: syn::Expr = inner.value()?.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

fn is_ident(meta: &ParseNestedMeta, name: &str) -> bool {
    meta.path.is_ident(name)
}

/// A casing value; an unknown one is reported and read as the default.
fn casing(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Casing>> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok(match lit.value().as_str() {
        "lower" | "lowercase" => Some(Casing::Lower),
        "upper" | "uppercase" => Some(Casing::Upper),
        "none" | "preserve" => Some(Casing::Preserve),
        other => {
            cx.error(
                &lit,
                format!("unknown casing `{other}`; expected \"lower\" (the default), \"upper\" or \"none\""),
            );
            None
        }
    })
}

/// A `u32` value; anything else is reported.
fn number(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(u32, Span)>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    let parsed = match &expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => lit.base10_parse::<u32>().ok().map(|v| (v, lit.span())),
        _ => None,
    };
    if parsed.is_none() {
        let name = meta
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        cx.error(
            &expr,
            format!("`{name}` is a whole number from 0 to 4294967295, such as `{name} = 1`"),
        );
    }
    Ok(parsed)
}

/// A string value; anything else is reported.
fn string(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Ok(Some(lit)),
        other => {
            let name = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            cx.error(
                &other,
                format!("`{name}` takes a string, such as `{name} = \"...\"`"),
            );
            Ok(None)
        }
    }
}

/// Reads every container attribute of the struct.
pub fn read_entity(cx: &Ctxt, attrs: &[syn::Attribute]) -> RawEntity {
    let mut raw = RawEntity::default();
    for attr in attrs {
        let name = match attr.path().get_ident() {
            Some(name) => name.to_string(),
            None => continue,
        };
        match name.as_str() {
            "entity" => {
                let before = cx.error_count();
                let result = attr.parse_nested_meta(|meta| read_entity_key(cx, &mut raw, &meta));
                if let Err(e) = result {
                    cx.syn_error(e);
                }
                raw.entity_errors |= cx.error_count() > before;
            }
            "pk" | "sk" => {
                if name == "pk" {
                    raw.pk_written = true;
                }
                let key = read_key(cx, attr);
                let slot = if name == "pk" {
                    &mut raw.pk
                } else {
                    &mut raw.sk
                };
                match (slot.is_some(), key) {
                    (true, Some(_)) => cx.error(
                        attr,
                        format!("duplicate `#[{name}]`: an entity has one {name}"),
                    ),
                    (false, Some(key)) => *slot = Some(key),
                    (_, None) => {}
                }
            }
            "index" => {
                // Each index nests under its logical name, so no two indexes
                // share an attribute path (and clippy's
                // `duplicated_attributes` stays quiet on user code).
                let result = attr.parse_nested_meta(|meta| {
                    let Some(name) = meta.path.get_ident().cloned() else {
                        return Err(meta.error("expected an index name, such as `by_project(gsi = \"gsi1\", pk(...))`"));
                    };
                    if meta.input.peek(syn::Token![=]) {
                        return Err(meta.error(
                            "an index starts with its logical name, which names its accessor: `#[index(by_project(gsi = \"gsi1\", pk(...)))]`",
                        ));
                    }
                    if !meta.input.peek(syn::token::Paren) {
                        return Err(meta.error(format!(
                            "write an index as its logical name with its keys: `{name}(gsi = \"...\", pk(...), sk(...))`"
                        )));
                    }
                    let mut index =
                        RawIndex {
                        name,
                        had_errors: false,
                        physical: None,
                        pk: None,
                        sk: None,
                        casing: None,
                        collection: None,
                        clustered: None,
                    };
                    let before = cx.error_count();
                    meta.parse_nested_meta(|inner| read_index_key(cx, &mut index, &inner))?;
                    index.had_errors = cx.error_count() > before;
                    raw.indexes.push(index);
                    Ok(())
                });
                if let Err(e) = result {
                    cx.syn_error(e);
                }
            }
            _ => {}
        }
    }
    raw
}

fn read_entity_key(cx: &Ctxt, raw: &mut RawEntity, meta: &ParseNestedMeta) -> syn::Result<()> {
    if is_ident(meta, "name") {
        raw.name = string(cx, meta)?;
    } else if is_ident(meta, "schema") {
        raw.schema = string(cx, meta)?;
    } else if is_ident(meta, "schema_version") {
        raw.schema_version = number(cx, meta)?;
    } else if is_ident(meta, "version") {
        raw.version = number(cx, meta)?;
    } else if is_ident(meta, "table") {
        raw.table = string(cx, meta)?;
    } else if is_ident(meta, "casing") {
        raw.casing = casing(cx, meta)?;
    } else if is_ident(meta, "rename_all") {
        let Some(lit) = string(cx, meta)? else {
            return Ok(());
        };
        raw.rename_all = RenameRule::from_name(&lit.value());
        if raw.rename_all.is_none() {
            cx.error(
                &lit,
                format!(
                    "unknown rename rule `{}`{}; the rules are: {}",
                    lit.value(),
                    did_you_mean(&lit.value(), RenameRule::NAMES),
                    RenameRule::NAMES.join(", ")
                ),
            );
        }
    } else if is_ident(meta, "crate") {
        let Some(lit) = string(cx, meta)? else {
            return Ok(());
        };
        match lit.parse::<syn::Path>() {
            Ok(path) => raw.krate = Some(path),
            Err(_) => cx.error(
                &lit,
                "`crate` is the path of the runtime crate, such as `crate = \"::entity_client\"`",
            ),
        }
    } else {
        return unknown(cx, meta, "`#[entity]`", &ENTITY_KEYS);
    }
    Ok(())
}

/// `#[pk(a, b, attr = "pk")]`, `#[sk]`, `#[sk(format = "profile")]`.
fn read_key(cx: &Ctxt, attr: &syn::Attribute) -> Option<RawKey> {
    let mut key = empty_key(attr.path().span());
    if let syn::Meta::Path(_) = attr.meta {
        return Some(key);
    }
    match attr.parse_nested_meta(|meta| read_key_item(cx, &mut key, &meta)) {
        Ok(()) => Some(key),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

fn empty_key(span: Span) -> RawKey {
    RawKey {
        span,
        attribute: None,
        composites: Vec::new(),
        format: None,
        casing: None,
    }
}

fn read_key_item(cx: &Ctxt, key: &mut RawKey, meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        if is_ident(meta, "attr") {
            key.attribute = string(cx, meta)?;
        } else if is_ident(meta, "format") {
            key.format = string(cx, meta)?;
        } else if is_ident(meta, "casing") {
            key.casing = casing(cx, meta)?;
        } else {
            return unknown(cx, meta, "`pk(...)`/`sk(...)`", &KEY_KEYS);
        }
        return Ok(());
    }
    if meta.input.peek(syn::token::Paren) {
        return Err(meta.error("a key lists field names, such as `pk(tenant_id, user_id)`"));
    }
    match meta.path.get_ident() {
        Some(ident) => {
            key.composites.push(ident.clone());
            Ok(())
        }
        None => Err(meta.error("expected a field name")),
    }
}

fn read_index_key(cx: &Ctxt, index: &mut RawIndex, meta: &ParseNestedMeta) -> syn::Result<()> {
    if is_ident(meta, "gsi") || is_ident(meta, "lsi") {
        let kind = if is_ident(meta, "gsi") {
            RawIndexKind::Global
        } else {
            RawIndexKind::Local
        };
        let name: LitStr = meta.value()?.parse()?;
        if index.physical.is_some() {
            return Err(syn::Error::new(
                name.span(),
                "an index is either one `gsi = \"...\"` or one `lsi = \"...\"`",
            ));
        }
        index.physical = Some((kind, name));
    } else if is_ident(meta, "pk") || is_ident(meta, "sk") {
        let mut key = empty_key(meta.path.span());
        if meta.input.peek(syn::token::Paren) {
            // `sk()` (no composites) is valid; syn's nested parser wants at
            // least one item, so empty parentheses are read by hand.
            let content;
            syn::parenthesized!(content in meta.input);
            if !content.is_empty() {
                let tokens: proc_macro2::TokenStream = content.parse()?;
                syn::parse::Parser::parse2(
                    syn::meta::parser(|inner| read_key_item(cx, &mut key, &inner)),
                    tokens,
                )?;
            }
        } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
            return Err(meta.error("expected `pk(...)` or `sk(...)` listing the key's fields"));
        }
        let slot = if is_ident(meta, "pk") {
            &mut index.pk
        } else {
            &mut index.sk
        };
        if slot.is_some() {
            let which = if is_ident(meta, "pk") { "pk" } else { "sk" };
            cx.error_at(
                key.span,
                format!("duplicate `{which}(...)`: an index has one {which}"),
            );
        }
        *slot = Some(key);
    } else if is_ident(meta, "casing") {
        index.casing = casing(cx, meta)?;
    } else if is_ident(meta, "collection") {
        let expr: syn::Expr = meta.value()?.parse()?;
        let span = expr.span();
        let strings = |e: &syn::Expr| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        };
        let path: Option<Vec<String>> = match &expr {
            syn::Expr::Array(array) => array.elems.iter().map(strings).collect(),
            other => strings(other).map(|s| vec![s]),
        };
        match path {
            Some(path) if !path.is_empty() && path.iter().all(|p| !p.is_empty() && !p.contains('#')) => {
                index.collection = Some((path, span))
            }
            _ => cx.error(
                &expr,
                "`collection` is a name, `collection = \"tenantMembers\"`, or a path of names for a sub-collection, `collection = [\"contributions\", \"assignments\"]` (non-empty, without `#`)",
            ),
        }
    } else if (is_ident(meta, "clustered") || is_ident(meta, "isolated")) && meta.input.is_empty()
        || (is_ident(meta, "clustered") || is_ident(meta, "isolated"))
            && meta.input.peek(syn::Token![,])
    {
        index.clustered = Some((is_ident(meta, "clustered"), meta.path.span()));
    } else {
        return unknown(cx, meta, "`#[index]`", &INDEX_KEYS);
    }
    Ok(())
}

/// Reads `#[entity(...)]` on a field.
pub fn read_field(cx: &Ctxt, attrs: &[syn::Attribute]) -> RawField {
    let mut raw = RawField::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("entity")) {
        let result = attr.parse_nested_meta(|meta| {
            if is_ident(&meta, "rename") {
                raw.rename = string(cx, &meta)?;
            } else if is_ident(&meta, "serde") {
                raw.serde = true;
            } else {
                return unknown(cx, &meta, "field", &FIELD_KEYS);
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    raw
}
