//! `#[derive(Entity)]`'s attributes: `#[entity]`, `#[pk]`, `#[sk]`,
//! `#[index]` and field `#[entity]`, read into raw values.

use super::lifecycle::{self, LifecycleRole, RawHistory, RawSoftDelete};
use super::{crate_path, number, set_flag, set_once, string, string_path, unknown};
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

/// A casing value; an unknown one is reported.
fn casing(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(Casing, Span)>> {
    let lit: LitStr = meta.value()?.parse()?;
    let casing = match lit.value().as_str() {
        "lower" | "lowercase" => Casing::Lower,
        "upper" | "uppercase" => Casing::Upper,
        "none" | "preserve" => Casing::Preserve,
        other => {
            cx.error(
                &lit,
                format!("unknown casing `{other}`; expected \"lower\" (the default), \"upper\" or \"none\""),
            );
            return Ok(None);
        }
    };
    Ok(Some((casing, meta.path.span())))
}

/// `shards = N`: an integer literal; its range is checked with the key.
fn shards(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<RawShards>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    if let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(lit),
        ..
    }) = &expr
    {
        return Ok(Some(RawShards {
            count: lit.base10_parse::<u64>().unwrap_or(u64::MAX),
            literal: lit.span(),
            token: meta.path.span(),
        }));
    }
    cx.error(
        &expr,
        "`shards` is the number of partitions to spread the key over, a whole number from 2 to 256, such as `shards = 10`",
    );
    Ok(None)
}

/// `version_type = "number" | "string"`; an unknown one is reported.
fn version_type(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(bool, Span)>> {
    let lit: LitStr = meta.value()?.parse()?;
    let is_string = match lit.value().as_str() {
        "number" | "N" => false,
        "string" | "S" => true,
        other => {
            cx.error(
                &lit,
                format!("unknown version type `{other}`; expected \"number\" (the default, `N`) or \"string\" (`S`, as ElectroDB writes it)"),
            );
            return Ok(None);
        }
    };
    Ok(Some((is_string, lit.span())))
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
    pub casing: Option<(Casing, Span)>,
    pub rename_all: Option<RenameRule>,
    pub krate: Option<syn::Path>,
    /// `identity_attribute = "..."`: where items record the entity name.
    pub identity_attribute: Option<LitStr>,
    /// `version_attribute = "..."`: where items record the entity version.
    pub version_attribute: Option<LitStr>,
    /// `version_type = "string"`: the version is written as `S`, not `N`.
    pub version_is_string: Option<(bool, Span)>,
    /// `upgrade_from = TaskV1`: the entity that reads the previous version.
    pub upgrade_from: Option<syn::Type>,
    /// `collection = ...`: the table's keys join a collection.
    pub collection: Option<(Vec<String>, Span)>,
    /// `clustered` or `isolated` for the table's collection, where written.
    pub clustered: Option<(bool, Span)>,
    pub pk: Option<RawKey>,
    pub sk: Option<RawKey>,
    pub indexes: Vec<RawIndex>,
    /// `unique(...)`, each time it is written.
    pub unique: Vec<RawUnique>,
    /// `soft_delete` or `soft_delete(...)`.
    pub soft_delete: Option<RawSoftDelete>,
    /// `history` or `history(...)`.
    pub history: Option<RawHistory>,
    /// `tenant = tenant_id`: the field holding the tenant.
    pub tenant: Option<Ident>,
}

/// `unique(tenant_id, email, case_insensitive, name = "...")`.
pub struct RawUnique {
    /// The `unique` token.
    pub span: Span,
    pub fields: Vec<Ident>,
    pub case_insensitive: Option<Span>,
    pub name: Option<LitStr>,
}

pub struct RawKey {
    /// The `pk`/`sk` token.
    pub span: Span,
    pub attribute: Option<LitStr>,
    pub composites: Vec<Ident>,
    pub format: Option<LitStr>,
    pub casing: Option<(Casing, Span)>,
    /// `number`: the key is stored as a DynamoDB `N` attribute.
    pub number: Option<Span>,
    /// `value_casing = "lower"`: composite values are case-folded (lossy).
    pub value_casing: Option<(Casing, Span)>,
    /// `shards = 10`: a write-sharded partition key.
    pub shards: Option<RawShards>,
}

/// `shards = N` as written: the value (checked later), the literal and the
/// `shards` token.
#[derive(Clone, Copy)]
pub struct RawShards {
    /// The number written; `u64::MAX` when it does not fit.
    pub count: u64,
    pub literal: Span,
    pub token: Span,
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
    pub casing: Option<(Casing, Span)>,
    /// `collection = "name"` or `collection = ["parent", "child"]`.
    pub collection: Option<(Vec<String>, Span)>,
    /// `clustered` or `isolated`, where written.
    pub clustered: Option<(bool, Span)>,
    /// `multi_attribute`: a GSI keyed on the fields' own attributes.
    pub multi_attribute: Option<Span>,
    /// `policy = "preserve" | "sparse"`, with the literal.
    pub policy: Option<(IndexPolicy, Span)>,
    /// `projection = all | keys_only | include(field, ..)`.
    pub projection: Option<RawProjection>,
}

/// `projection = ...` on an index, as written.
pub struct RawProjection {
    pub kind: RawProjectionKind,
    /// The value after `projection =`.
    pub span: Span,
}

pub enum RawProjectionKind {
    All,
    KeysOnly,
    /// The fields named, in the order written (possibly none).
    Include(Vec<Ident>),
}

/// How an update may change an index's composites (effect-dynamodb's
/// `indexPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexPolicy {
    /// Only together, through the group setter, which recomposes the keys.
    #[default]
    Preserve,
    /// Also one by one; an update that sets some but not all of them
    /// removes the index's keys (the item leaves the index).
    Sparse,
}

#[derive(Default)]
pub struct RawField {
    pub rename: Option<LitStr>,
    pub serde: Option<Span>,
    /// `wide_int`: a `u128`/`i128` key composite, accepted knowingly.
    pub wide_int: Option<Span>,
    /// The roles of a field the client manages, in the order written, each
    /// with its token.
    pub managed: Vec<(ManagedRole, Span)>,
    /// `ttl` and `deleted_at`, in the order written, each with its token.
    pub lifecycle: Vec<(LifecycleRole, Span)>,
    /// `compress` or `compress(min = N)`.
    pub compress: Option<RawCompress>,
    /// `encrypt`: encrypted and signed by the Database Encryption SDK.
    pub encrypt: Option<Span>,
    /// `sign`: signed (not encrypted) by the Database Encryption SDK.
    pub sign: Option<Span>,
}

/// `compress` on a field, with its token and the `min = N` threshold when
/// written.
#[derive(Clone, Copy)]
pub struct RawCompress {
    pub span: Span,
    pub min: Option<u32>,
}

/// What the client writes into a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManagedRole {
    CreatedAt,
    UpdatedAt,
    Version,
    Generate(IdKind),
}

impl ManagedRole {
    /// The attribute key, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ManagedRole::CreatedAt => "created_at",
            ManagedRole::UpdatedAt => "updated_at",
            ManagedRole::Version => "version",
            ManagedRole::Generate(_) => "generate",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdKind {
    Ulid,
    Uuid,
}

const ENTITY_KEYS: [&str; 19] = [
    "name",
    "schema",
    "schema_version",
    "version",
    "table",
    "casing",
    "rename_all",
    "crate",
    "identity_attribute",
    "version_attribute",
    "version_type",
    "upgrade_from",
    "collection",
    "clustered",
    "isolated",
    "unique",
    "soft_delete",
    "history",
    "tenant",
];
const KEY_KEYS: [&str; 5] = ["attr", "format", "casing", "value_casing", "shards"];
const INDEX_KEYS: [&str; 11] = [
    "gsi",
    "lsi",
    "pk",
    "sk",
    "casing",
    "collection",
    "clustered",
    "isolated",
    "multi_attribute",
    "policy",
    "projection",
];
const FIELD_KEYS: [&str; 12] = [
    "rename",
    "serde",
    "wide_int",
    "created_at",
    "updated_at",
    "version",
    "generate",
    "ttl",
    "deleted_at",
    "compress",
    "encrypt",
    "sign",
];
const UNIQUE_OPTIONS: [&str; 2] = ["case_insensitive", "name"];

/// Reads every container attribute of the struct.
pub fn read_entity(cx: &Ctxt, attrs: &[syn::Attribute]) -> RawEntity {
    let mut raw = RawEntity::default();
    raw.entity_errors = super::each_attribute(cx, attrs, "entity", |meta| {
        read_entity_key(cx, &mut raw, meta)
    });
    for attr in attrs {
        if attr.path().is_ident("pk") || attr.path().is_ident("sk") {
            read_table_key(cx, &mut raw, attr);
        }
    }
    super::each_attribute(cx, attrs, "index", |meta| {
        if let Some(index) = read_index(cx, meta)? {
            raw.indexes.push(index);
        }
        Ok(())
    });
    raw
}

/// `#[pk(...)]` or `#[sk(...)]`, once each.
fn read_table_key(cx: &Ctxt, raw: &mut RawEntity, attr: &syn::Attribute) {
    let is_pk = attr.path().is_ident("pk");
    raw.pk_written |= is_pk;
    let Some(key) = read_key(cx, attr) else {
        return;
    };
    let (slot, name) = if is_pk {
        (&mut raw.pk, "pk")
    } else {
        (&mut raw.sk, "sk")
    };
    if slot.is_some() {
        cx.error(
            attr,
            format!("duplicate `#[{name}]`: an entity has one {name}"),
        );
    } else {
        *slot = Some(key);
    }
}

/// One index, nested under its logical name, so no two indexes share an
/// attribute path (and clippy's `duplicated_attributes` stays quiet on user
/// code): `by_project(gsi = "gsi1", pk(...), sk(...))`.
fn read_index(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<RawIndex>> {
    let Some(name) = meta.path.get_ident().cloned() else {
        return Err(
            meta.error("expected an index name, such as `by_project(gsi = \"gsi1\", pk(...))`")
        );
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
    let mut index = RawIndex {
        name,
        had_errors: false,
        physical: None,
        pk: None,
        sk: None,
        casing: None,
        collection: None,
        clustered: None,
        multi_attribute: None,
        policy: None,
        projection: None,
    };
    let before = cx.error_count();
    meta.parse_nested_meta(|inner| read_index_key(cx, &mut index, &inner))?;
    index.had_errors = cx.error_count() > before;
    Ok(Some(index))
}

fn read_entity_key(cx: &Ctxt, raw: &mut RawEntity, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = super::key_name(meta);
    match key.as_str() {
        "name" => set_once(cx, meta, &mut raw.name, string(cx, meta)?),
        "schema" => set_once(cx, meta, &mut raw.schema, string(cx, meta)?),
        "schema_version" => set_once(cx, meta, &mut raw.schema_version, number(cx, meta)?),
        "version" => set_once(cx, meta, &mut raw.version, number(cx, meta)?),
        "table" => set_once(cx, meta, &mut raw.table, string(cx, meta)?),
        "casing" => set_once(cx, meta, &mut raw.casing, casing(cx, meta)?),
        "rename_all" => {
            let rule = string(cx, meta)?.and_then(|lit| rename_rule(cx, &lit));
            set_once(cx, meta, &mut raw.rename_all, rule);
        }
        "crate" => set_once(cx, meta, &mut raw.krate, crate_path(cx, meta)?),
        "identity_attribute" => set_once(cx, meta, &mut raw.identity_attribute, string(cx, meta)?),
        "version_attribute" => set_once(cx, meta, &mut raw.version_attribute, string(cx, meta)?),
        "version_type" => set_once(
            cx,
            meta,
            &mut raw.version_is_string,
            version_type(cx, meta)?,
        ),
        "upgrade_from" => {
            let ty: syn::Type = meta.value()?.parse()?;
            set_once(cx, meta, &mut raw.upgrade_from, Some(ty));
        }
        "collection" => set_once(cx, meta, &mut raw.collection, collection(cx, meta)?),
        "clustered" | "isolated" if is_flag(meta) => {
            layout(cx, meta, &mut raw.clustered, "the table's key");
        }
        // One per constraint: written as often as there are constraints.
        "unique" => raw.unique.extend(read_unique(cx, meta)?),
        "soft_delete" => set_once(
            cx,
            meta,
            &mut raw.soft_delete,
            lifecycle::soft_delete(cx, meta)?,
        ),
        "history" => set_once(cx, meta, &mut raw.history, lifecycle::history(cx, meta)?),
        "tenant" => {
            let field: Ident = meta.value()?.parse()?;
            set_once(cx, meta, &mut raw.tenant, Some(field));
        }
        _ => return unknown(cx, meta, "`#[entity]`", &ENTITY_KEYS),
    }
    Ok(())
}

fn rename_rule(cx: &Ctxt, lit: &LitStr) -> Option<RenameRule> {
    let rule = RenameRule::from_name(&lit.value());
    if rule.is_none() {
        cx.error(
            lit,
            format!(
                "unknown rename rule `{}`{}; the rules are: {}",
                lit.value(),
                did_you_mean(&lit.value(), RenameRule::NAMES),
                RenameRule::NAMES.join(", ")
            ),
        );
    }
    rule
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

pub fn empty_key(span: Span) -> RawKey {
    RawKey {
        span,
        attribute: None,
        composites: Vec::new(),
        format: None,
        casing: None,
        number: None,
        value_casing: None,
        shards: None,
    }
}

fn read_key_item(cx: &Ctxt, key: &mut RawKey, meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        match super::key_name(meta).as_str() {
            "attr" => set_once(cx, meta, &mut key.attribute, string(cx, meta)?),
            "format" => set_once(cx, meta, &mut key.format, string(cx, meta)?),
            "casing" => set_once(cx, meta, &mut key.casing, casing(cx, meta)?),
            "value_casing" => set_once(cx, meta, &mut key.value_casing, casing(cx, meta)?),
            "shards" => set_once(cx, meta, &mut key.shards, shards(cx, meta)?),
            _ => return unknown(cx, meta, "`pk(...)`/`sk(...)`", &KEY_KEYS),
        }
        return Ok(());
    }
    if meta.input.peek(syn::token::Paren) {
        return Err(meta.error("a key lists field names, such as `pk(tenant_id, user_id)`"));
    }
    match meta.path.get_ident() {
        // A field named `number` is written `r#number`.
        Some(ident) if ident == "number" => {
            set_once(cx, meta, &mut key.number, Some(ident.span()));
            Ok(())
        }
        // A field named `multi_attribute` is written `r#multi_attribute`.
        Some(ident) if ident == "multi_attribute" => {
            cx.error(
                ident,
                "`multi_attribute` is written on a global secondary index, beside `gsi = \"...\"`: `by_region(gsi = \"gsi3\", multi_attribute, pk(a, b), sk(c, d))`; the table's key and a local index's sort key are one attribute each",
            );
            Ok(())
        }
        Some(ident) => {
            key.composites.push(ident.clone());
            Ok(())
        }
        None => Err(meta.error("expected a field name")),
    }
}

fn read_index_key(cx: &Ctxt, index: &mut RawIndex, meta: &ParseNestedMeta) -> syn::Result<()> {
    match super::key_name(meta).as_str() {
        "gsi" | "lsi" => read_physical(cx, index, meta)?,
        "pk" | "sk" => read_index_key_list(cx, index, meta)?,
        "casing" => set_once(cx, meta, &mut index.casing, casing(cx, meta)?),
        "collection" => set_once(cx, meta, &mut index.collection, collection(cx, meta)?),
        "clustered" | "isolated" if is_flag(meta) => {
            layout(cx, meta, &mut index.clustered, "an index")
        }
        "multi_attribute" => set_flag(cx, meta, &mut index.multi_attribute),
        "policy" => set_once(cx, meta, &mut index.policy, index_policy(cx, meta)?),
        "projection" => set_once(cx, meta, &mut index.projection, projection(cx, meta)?),
        _ => return unknown(cx, meta, "`#[index]`", &INDEX_KEYS),
    }
    Ok(())
}

/// `policy = "preserve" | "sparse"`; an unknown one is reported on the
/// literal, with a suggestion.
fn index_policy(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(IndexPolicy, Span)>> {
    let lit: LitStr = meta.value()?.parse()?;
    let policy = match lit.value().as_str() {
        "preserve" => IndexPolicy::Preserve,
        "sparse" => IndexPolicy::Sparse,
        other => {
            cx.error(
                &lit,
                format!(
                    "unknown index policy `{other}`{}; expected \"preserve\" (the default: the index's composites change together, through their group setter) or \"sparse\" (each composite can also be set alone, and an update that sets some but not all of them removes the index's keys)",
                    did_you_mean(other, ["preserve", "sparse"])
                ),
            );
            return Ok(None);
        }
    };
    Ok(Some((policy, lit.span())))
}

/// `projection = all`, `keys_only` or `include(field, ..)`: read as an
/// expression, so a malformed one is reported on itself.
fn projection(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<RawProjection>> {
    const KINDS: [&str; 3] = ["all", "keys_only", "include"];
    let expr: syn::Expr = meta.value()?.parse()?;
    let span = expr.span();
    let ident = |expr: &syn::Expr| match expr {
        syn::Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => {
            p.path.get_ident().cloned()
        }
        _ => None,
    };
    let kind = match &expr {
        syn::Expr::Call(call) if ident(&call.func).is_some_and(|i| i == "include") => {
            let fields: Vec<Option<Ident>> = call.args.iter().map(ident).collect();
            if let Some(bad) = call.args.iter().zip(&fields).find(|(_, f)| f.is_none()) {
                cx.error(
                    bad.0,
                    "`include(..)` lists field names: `include(title, due)`",
                );
                return Ok(None);
            }
            RawProjectionKind::Include(fields.into_iter().flatten().collect())
        }
        _ => match ident(&expr).map(|i| i.to_string()).as_deref() {
            Some("all") => RawProjectionKind::All,
            Some("keys_only") => RawProjectionKind::KeysOnly,
            written => {
                cx.error(
                    &expr,
                    format!(
                        "unknown index projection{}; expected `all` (the default: whole items), `keys_only` (the key attributes) or `include(field, ..)` (the keys and these fields)",
                        written.map_or(String::new(), |w| did_you_mean(w, KINDS))
                    ),
                );
                return Ok(None);
            }
        },
    };
    Ok(Some(RawProjection { kind, span }))
}

/// `collection = "name"` or `collection = ["parent", "child"]`, on an index
/// or on the entity (the table's keys).
fn collection(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<(Vec<String>, Span)>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    let path =
        string_path(&expr).filter(|path| path.iter().all(|p| !p.is_empty() && !p.contains('#')));
    if path.is_none() {
        cx.error(
            &expr,
            "`collection` is a name, `collection = \"tenantMembers\"`, or a path of names for a sub-collection, `collection = [\"contributions\", \"assignments\"]` (non-empty, without `#`)",
        );
    }
    Ok(path.map(|p| (p, expr.span())))
}

/// A key written alone, with no value.
fn is_flag(meta: &ParseNestedMeta) -> bool {
    meta.input.is_empty() || meta.input.peek(syn::Token![,])
}

/// `clustered` or `isolated`, once.
fn layout(cx: &Ctxt, meta: &ParseNestedMeta, slot: &mut Option<(bool, Span)>, owner: &str) {
    if slot.is_some() {
        cx.error(
            &meta.path,
            format!("{owner} is `clustered` or `isolated`, written once: keep one"),
        );
    } else {
        *slot = Some((meta.path.is_ident("clustered"), meta.path.span()));
    }
}

/// `gsi = "..."` or `lsi = "..."`: one of them, once.
fn read_physical(cx: &Ctxt, index: &mut RawIndex, meta: &ParseNestedMeta) -> syn::Result<()> {
    let kind = if meta.path.is_ident("gsi") {
        RawIndexKind::Global
    } else {
        RawIndexKind::Local
    };
    let name: LitStr = meta.value()?.parse()?;
    if index.physical.is_some() {
        cx.error(
            &name,
            "an index is either one `gsi = \"...\"` or one `lsi = \"...\"`",
        );
        return Ok(());
    }
    index.physical = Some((kind, name));
    Ok(())
}

/// `pk(...)`/`sk(...)` inside an index; `sk()` (no composites) is valid.
fn read_index_key_list(cx: &Ctxt, index: &mut RawIndex, meta: &ParseNestedMeta) -> syn::Result<()> {
    let mut key = empty_key(meta.path.span());
    if meta.input.peek(syn::token::Paren) {
        // syn's nested parser wants at least one item, so empty parentheses
        // are read by hand.
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
    let (slot, which) = if meta.path.is_ident("pk") {
        (&mut index.pk, "pk")
    } else {
        (&mut index.sk, "sk")
    };
    if slot.is_some() {
        cx.error_at(
            key.span,
            format!("duplicate `{which}(...)`: an index has one {which}"),
        );
    }
    *slot = Some(key);
    Ok(())
}

/// Reads `#[entity(...)]` on a field.
pub fn read_field(cx: &Ctxt, attrs: &[syn::Attribute]) -> RawField {
    let mut raw = RawField::default();
    super::each_attribute(cx, attrs, "entity", |meta| {
        match super::key_name(meta).as_str() {
            "rename" => set_once(cx, meta, &mut raw.rename, string(cx, meta)?),
            "serde" => set_flag(cx, meta, &mut raw.serde),
            "wide_int" => set_flag(cx, meta, &mut raw.wide_int),
            "encrypt" => set_flag(cx, meta, &mut raw.encrypt),
            "sign" => set_flag(cx, meta, &mut raw.sign),
            "created_at" => role_flag(cx, meta, &mut raw.managed, ManagedRole::CreatedAt),
            "updated_at" => role_flag(cx, meta, &mut raw.managed, ManagedRole::UpdatedAt),
            "version" => role_flag(cx, meta, &mut raw.managed, ManagedRole::Version),
            "generate" => {
                if let Some(kind) = id_kind(cx, meta)? {
                    role_flag(cx, meta, &mut raw.managed, ManagedRole::Generate(kind));
                }
            }
            "ttl" => {
                if let Some(role) = lifecycle::ttl(cx, meta)? {
                    role_flag(cx, meta, &mut raw.lifecycle, role);
                }
            }
            "deleted_at" => role_flag(cx, meta, &mut raw.lifecycle, LifecycleRole::DeletedAt),
            "compress" => {
                let compress = read_compress(cx, meta)?;
                set_once(cx, meta, &mut raw.compress, compress);
            }
            _ => return unknown(cx, meta, "field", &FIELD_KEYS),
        }
        Ok(())
    });
    raw
}

/// `compress` or `compress(min = 4096)`.
fn read_compress(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<RawCompress>> {
    let mut compress = RawCompress {
        span: meta.path.span(),
        min: None,
    };
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            match super::key_name(&inner).as_str() {
                "min" => set_once(
                    cx,
                    &inner,
                    &mut compress.min,
                    number(cx, &inner)?.map(|(n, _)| n),
                ),
                _ => return unknown(cx, &inner, "`compress(...)`", &["min"]),
            }
            Ok(())
        })?;
    } else if !is_flag(meta) {
        return Err(meta
            .error("write `compress`, or `compress(min = 4096)` for another threshold in bytes"));
    }
    Ok(Some(compress))
}

/// A field role (managed or lifecycle), by the key that declares it.
pub trait Role: Copy {
    fn name(self) -> &'static str;
}

impl Role for ManagedRole {
    fn name(self) -> &'static str {
        ManagedRole::name(self)
    }
}

impl Role for LifecycleRole {
    fn name(self) -> &'static str {
        LifecycleRole::name(self)
    }
}

/// A field role; the same key twice is refused like any key given twice
/// (two different roles are the checks' to refuse).
fn role_flag<R: Role>(cx: &Ctxt, meta: &ParseNestedMeta, roles: &mut Vec<(R, Span)>, role: R) {
    let name = role.name();
    if roles.iter().any(|(r, _)| r.name() == name) {
        cx.error(
            &meta.path,
            format!("`{name}` is given twice; keep one `{name}`"),
        );
        return;
    }
    roles.push((role, meta.path.span()));
}

/// `generate = "ulid" | "uuid"`; another value is reported on the literal.
fn id_kind(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<IdKind>> {
    let Some(lit) = string(cx, meta)? else {
        return Ok(None);
    };
    Ok(match lit.value().as_str() {
        "ulid" => Some(IdKind::Ulid),
        "uuid" => Some(IdKind::Uuid),
        other => {
            cx.error(
                &lit,
                format!(
                    "unknown id kind `{other}`{}; `generate` takes \"ulid\" (sorts by creation time) or \"uuid\" (random, v4)",
                    did_you_mean(other, ["ulid", "uuid"])
                ),
            );
            None
        }
    })
}

/// `unique(field, ..., case_insensitive, name = "...")`: the fields whose
/// values no two items share, with the constraint's options; or named
/// constraints, `unique(email(email, case_insensitive), handle(tenant_id,
/// handle))`, each a list under its name. The named form is how several
/// constraints share a field or an option without clippy's
/// `duplicated_attributes` reading `entity:unique:case_insensitive` twice.
fn read_unique(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Vec<RawUnique>> {
    let example = "such as `unique(email)`, `unique(tenant_id, email, case_insensitive)` or `unique(email(email), handle(tenant_id, handle))`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`unique` lists the fields of a constraint, {example}"
        )));
    }
    // syn's nested parser wants at least one item: `unique()` is read here.
    let content;
    syn::parenthesized!(content in meta.input);
    if content.is_empty() {
        cx.error(
            &meta.path,
            format!("`unique()` names no field: list the fields no two items may share, {example}"),
        );
        return Ok(Vec::new());
    }
    let tokens: proc_macro2::TokenStream = content.parse()?;
    let mut shorthand = new_unique(meta.path.span());
    let mut named = Vec::new();
    syn::parse::Parser::parse2(
        syn::meta::parser(|inner| {
            if is_named_constraint(&inner) {
                named.push(read_named_unique(cx, &inner)?);
                Ok(())
            } else {
                read_unique_item(cx, &mut shorthand, &inner)
            }
        }),
        tokens,
    )?;
    if !named.is_empty() && !shorthand.fields.is_empty() {
        cx.error(
            &meta.path,
            format!("`unique(...)` mixes named constraints with bare fields; write each constraint under its name, {example}"),
        );
        return Ok(Vec::new());
    }
    if named.is_empty() {
        named.push(shorthand);
    }
    Ok(named)
}

fn new_unique(span: Span) -> RawUnique {
    RawUnique {
        span,
        fields: Vec::new(),
        case_insensitive: None,
        name: None,
    }
}

/// `email(email, case_insensitive)` inside `unique(...)`: a list under a
/// name that is not an option.
fn is_named_constraint(meta: &ParseNestedMeta) -> bool {
    meta.input.peek(syn::token::Paren) && !UNIQUE_OPTIONS.contains(&super::key_name(meta).as_str())
}

/// A named constraint: its name, then its fields and options.
fn read_named_unique(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<RawUnique> {
    let name = super::key_name(meta);
    let mut unique = new_unique(meta.path.span());
    unique.name = Some(LitStr::new(&name, meta.path.span()));
    meta.parse_nested_meta(|inner| {
        if inner.input.peek(syn::token::Paren) || super::key_name(&inner) == "name" {
            return Err(inner.error(format!(
                "constraint `{name}` is named by its list; inside it go its fields and `case_insensitive`"
            )));
        }
        read_unique_item(cx, &mut unique, &inner)
    })?;
    Ok(unique)
}

fn read_unique_item(cx: &Ctxt, unique: &mut RawUnique, meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
        match super::key_name(meta).as_str() {
            "name" => set_once(cx, meta, &mut unique.name, string(cx, meta)?),
            _ => return unknown(cx, meta, "`unique(...)`", &UNIQUE_OPTIONS),
        }
        return Ok(());
    }
    match meta.path.get_ident() {
        // A field named `case_insensitive` is written `r#case_insensitive`.
        Some(ident) if ident == "case_insensitive" => {
            set_flag(cx, meta, &mut unique.case_insensitive);
            Ok(())
        }
        Some(ident) => {
            unique.fields.push(ident.clone());
            Ok(())
        }
        None => Err(meta.error("expected a field name")),
    }
}
