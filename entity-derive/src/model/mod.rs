//! Stage 1b: the resolved model of an entity. Names are final (renames and
//! casing applied), composites point at fields, and every key is a template
//! of literal and field segments. Each node keeps its source span.

pub mod collection;
pub mod derived;
pub mod key_part;
pub mod lifecycle;
pub mod managed;
pub mod multi_attribute;
pub mod names;
pub mod projection;
pub mod stops;
pub mod tenant;

use crate::attr::{self, Casing, RawIndexKind, RawKey};
use crate::ctxt::{did_you_mean, Ctxt};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, LitStr};

pub struct Entity<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub krate: TokenStream,
    pub name: String,
    /// `name = "..."` when written, else the struct's name.
    pub name_span: Span,
    pub version: u32,
    pub schema: String,
    pub schema_span: Option<Span>,
    pub schema_version: u32,
    pub table: Option<LitStr>,
    /// Where items record the entity name and version (`None`: the
    /// runtime's defaults), with the literal that set each.
    pub identity_attribute: Option<LitStr>,
    pub version_attribute: Option<LitStr>,
    /// The version is written as a string (`S`).
    pub version_is_string: bool,
    /// The entity that reads the previous version.
    pub upgrade_from: Option<syn::Type>,
    pub fields: Vec<Field<'a>>,
    pub primary: Index,
    pub indexes: Vec<Index>,
    /// Group setters (by first field) the fallback leaves out.
    pub omit_setters: Vec<usize>,
    /// Indexes whose query stage methods the fallback leaves out.
    pub omit_stages: Vec<String>,
    /// `unique(...)` constraints, in declaration order.
    pub unique: Vec<managed::Unique<'a>>,
    /// Unique constraints whose lookup the fallback leaves out.
    pub omit_unique: Vec<usize>,
    /// `soft_delete(...)`.
    pub soft_delete: Option<lifecycle::SoftDelete>,
    /// `history(...)`.
    pub history: Option<lifecycle::History>,
    /// `tenant = ...`: the field every partition key holds.
    pub tenant: Option<tenant::Tenant>,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a syn::Type,
    /// The type of the field's key text: `T` for an `Option<T>` (a sparse
    /// index composite: the item is in the index only while it is `Some`),
    /// else `ty`.
    pub key_ty: &'a syn::Type,
    /// `ty` is an `Option<T>`.
    pub optional: bool,
    pub attribute: String,
    /// The `rename = "..."` literal, or the field's name.
    pub attribute_span: Span,
    pub serde: bool,
    /// `#[entity(wide_int)]`: a `u128`/`i128` composite, accepted knowingly.
    pub wide_int: bool,
    /// `created_at`, `updated_at`, `version`, `generate = "..."`, as
    /// written (the checks allow one).
    pub managed: Vec<(attr::ManagedRole, Span)>,
    /// `ttl`, `deleted_at`, as written (the checks allow one).
    pub lifecycle: Vec<(attr::LifecycleRole, Span)>,
    /// `compress`: stored compressed at `min` bytes and above.
    pub compress: Option<Compress>,
    /// `encrypt`: encrypted and signed client-side (feature `encryption`
    /// of the client), with the token.
    pub encrypt: Option<Span>,
    /// `sign`: signed with the item, not encrypted, with the token.
    pub sign: Option<Span>,
}

impl Field<'_> {
    /// The field's `compress`, as generated code follows it: none on a field
    /// the client writes (managed, lifecycle) or stores through serde, which
    /// the checks refuse, so that mistake is one error, not a second one on
    /// the field's type.
    pub fn compression(&self) -> Option<Compress> {
        let refused = self.serde || !self.managed.is_empty() || !self.lifecycle.is_empty();
        self.compress.filter(|_| !refused)
    }
}

/// `#[entity(compress)]` on a field.
#[derive(Clone, Copy)]
pub struct Compress {
    /// The `compress` token.
    pub span: Span,
    /// The threshold in bytes: `min = N`, else the runtime's default
    /// (`entity_core::compress::DEFAULT_MIN`).
    pub min: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    Primary,
    Global,
    Local,
}

pub struct Index {
    /// The logical name (`primary` for the table).
    pub name: Ident,
    pub kind: IndexKind,
    /// The physical index name; `None` for the table.
    pub physical: Option<LitStr>,
    pub pk: Key,
    pub sk: Option<Key>,
    /// Whether `pk(...)` was written (LSIs may leave it out).
    pub pk_written: bool,
    /// The collection this index joins, if any.
    pub collection: Option<CollectionDecl>,
    /// `clustered`/`isolated` as written, for the collection rules.
    pub layout_written: Option<Span>,
    /// `multi_attribute`: a GSI keyed on fields' own attributes. Then `pk`
    /// is a placeholder, `sk` is `None` and [`Index::keys`] yields nothing.
    pub multi_attribute: Option<multi_attribute::MultiAttribute>,
    /// `policy = "..."` (default `preserve`), with the literal when written.
    pub policy: attr::IndexPolicy,
    pub policy_written: Option<Span>,
    /// `projection = ...`, when written (the table's key has none).
    pub projection: Option<projection::ProjectionDecl>,
}

/// `collection = ...` on an index.
#[derive(Clone, Debug)]
pub struct CollectionDecl {
    /// The path as written: one name, or parent names then the child.
    pub path: Vec<String>,
    /// The path as it appears in keys (cased).
    pub cased: Vec<String>,
    pub clustered: bool,
    /// The `collection = ...` value.
    pub span: Span,
}

/// Which key of which kind of index a template is for: collections change
/// the entity segment (seed 002's layouts).
#[derive(Clone, Copy)]
enum Role<'c> {
    Plain,
    CollectionPk(&'c CollectionDecl),
    CollectionSk(&'c CollectionDecl),
}

#[derive(Clone)]
pub struct Key {
    pub attribute: String,
    /// The `pk`/`sk` token, or the `attr = "..."` literal when given.
    pub span: Span,
    pub segments: Vec<Segment>,
    pub composites: Vec<Composite>,
    /// `format = "..."`, when the key has a custom format.
    pub format: Option<LitStr>,
    /// `casing = "..."` written on this key.
    pub casing_written: Option<Span>,
    /// `number` written on this key: stored as a DynamoDB `N` attribute.
    pub number: Option<Span>,
    /// `value_casing = "lower"`/`"upper"`: composite values are case-folded
    /// in the key (lossy), with the literal's span; `None` keeps them.
    pub value_casing: Option<(Casing, Span)>,
    /// `shards = N`: a write-sharded partition key.
    pub shards: Option<Shards>,
}

/// A write-sharded partition key: each item's key ends in a shard suffix
/// picked by a stable hash of its table key (`entity_core::key::ShardSpec`).
#[derive(Clone)]
pub struct Shards {
    /// As written; the checks refuse a count outside 2..=256.
    pub count: u64,
    /// The `N` literal and the `shards` token.
    pub literal: Span,
    pub token: Span,
    /// The text before the shard number: `#shard_` (cased like the key's
    /// structural parts) in the default format, `#SHARD#` after a custom one.
    pub label: String,
    /// The number's zero-padded width (that of `count - 1`), or 0 after a
    /// custom format (unpadded, seed 003's `STATUS#ACTIVE#SHARD#7`).
    pub width: u8,
}

impl Shards {
    /// The smallest and largest shard counts: one shard is no sharding, and
    /// past 256 a query's fan-out costs more than the spread gains.
    pub const RANGE: std::ops::RangeInclusive<u64> = 2..=256;

    fn new(raw: attr::RawShards, custom_format: bool, casing: Casing) -> Self {
        let (label, width) = if custom_format {
            ("#SHARD#".to_owned(), 0)
        } else {
            let digits = raw.count.saturating_sub(1).max(1).to_string().len();
            let label = format!("#{}_", casing.apply("shard"));
            (label, u8::try_from(digits).unwrap_or(u8::MAX))
        };
        Shards {
            count: raw.count,
            literal: raw.literal,
            token: raw.token,
            label,
            width,
        }
    }

    /// The count, when it is in range (generated code uses nothing else).
    pub fn valid_count(&self) -> Option<u16> {
        Self::RANGE
            .contains(&self.count)
            .then(|| u16::try_from(self.count).ok())
            .flatten()
    }
}

impl Key {
    /// The sharding generated code follows: none for a count out of range
    /// or a number-typed key, which the checks refuse.
    pub fn sharding(&self) -> Option<(&Shards, u16)> {
        let shards = self.shards.as_ref().filter(|_| self.number.is_none())?;
        Some((shards, shards.valid_count()?))
    }
}

#[derive(Clone)]
pub struct Composite {
    pub field: usize,
    /// Where the composite is named, for errors on it.
    pub token: Span,
    /// Written as plain decimal (`{n:unpadded}`, or a number-typed key):
    /// such text does not sort numerically.
    pub unpadded: bool,
    /// `{t:month}`: a bucket of a timestamp, written in place of its value.
    pub bucket: Option<derived::TimeUnit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Literal(String),
    /// A value with its label (`taskid_`), pointing into `Key::composites`.
    /// A `glued` field continues the previous segment with no `#`: `.{n}`
    /// in `{id}.{n}` has the label `.`.
    Field {
        label: String,
        composite: usize,
        glued: bool,
    },
    /// Literal text after the last field of a segment (`@latest` in
    /// `{id}@latest`), with no `#` before it.
    Suffix(String),
}

/// Text pieces of a key in write order: literal text (separators included)
/// and composite values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Value(usize),
}

impl Key {
    /// The key as literal text and values, with `#` between segments and
    /// labels folded into the text before their value.
    pub fn pieces(&self) -> Vec<Piece> {
        let mut pieces: Vec<Piece> = Vec::new();
        let mut text = String::new();
        for (i, segment) in self.segments.iter().enumerate() {
            let glued = matches!(
                segment,
                Segment::Suffix(_) | Segment::Field { glued: true, .. }
            );
            if i > 0 && !glued {
                text.push('#');
            }
            match segment {
                Segment::Literal(literal) | Segment::Suffix(literal) => text.push_str(literal),
                Segment::Field {
                    label, composite, ..
                } => {
                    text.push_str(label);
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                    pieces.push(Piece::Value(*composite));
                }
            }
        }
        pieces.push(Piece::Text(text));
        pieces.retain(|p| *p != Piece::Text(String::new()));
        pieces
    }

    /// The template with `{field}` where values go, for docs and the model.
    pub fn template(&self, fields: &[Field]) -> String {
        let mut out = String::new();
        for piece in self.pieces() {
            match piece {
                Piece::Text(text) => out.push_str(&text),
                Piece::Value(c) => {
                    out.push('{');
                    out.push_str(&fields[self.composites[c].field].ident.to_string());
                    if let Some(unit) = self.composites[c].bucket {
                        out.push(':');
                        out.push_str(unit.name());
                    }
                    out.push('}');
                }
            }
        }
        out
    }

    /// Literal text before composite `k`'s value, after composite `k - 1`'s
    /// (the whole key when there are no composites).
    pub fn text_before(&self, k: usize) -> String {
        let pieces = self.pieces();
        let mut seen = 0;
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Value(_) if seen == k => return out,
                Piece::Value(_) => {
                    seen += 1;
                    out.clear();
                }
                Piece::Text(text) => out.push_str(&text),
            }
        }
        out
    }
}

impl Entity<'_> {
    /// Removes the composites the checks refused (by type, or repeated in
    /// one key), so the fallback expansion compiles without them.
    pub fn drop_refused_composites(&mut self) {
        let fields = &self.fields;
        let indexes = std::iter::once(&mut self.primary).chain(&mut self.indexes);
        for index in indexes {
            let kind = index.kind;
            let keys =
                std::iter::once(("pk", &mut index.pk)).chain(index.sk.as_mut().map(|k| ("sk", k)));
            for (which, key) in keys {
                let table_key = crate::check::is_table_key(kind, which);
                // `unpadded` on a type that is not an integer has been
                // refused; the fallback writes it as usual.
                for c in &mut key.composites {
                    c.unpadded &= stops::is_integer(&fields[c.field]);
                    if !stops::is_timestamp(&fields[c.field]) {
                        c.bucket = None;
                    }
                }
                let mut seen = Vec::new();
                key.remove_composites(|c| {
                    if !fields[c.field].lifecycle.is_empty() {
                        return true; // refused by its role (`check::lifecycle`)
                    }
                    let repeated = seen.contains(&c.field);
                    seen.push(c.field);
                    repeated || crate::check::refuses_composite(&fields[c.field], table_key)
                });
            }
        }
    }
}

impl Entity<'_> {
    /// Leaves out what the name checks found colliding.
    pub fn omit(&mut self, skipped: crate::check::Skipped) {
        let mut position = 0;
        self.indexes.retain(|_| {
            position += 1;
            !skipped.indexes.contains(&(position - 1))
        });
        self.omit_setters = skipped.setters;
        self.omit_stages = skipped.stages;
        self.omit_unique = skipped.unique;
    }
}

impl Key {
    /// Appends a segment holding `field`'s value after `label`.
    fn push_field(&mut self, label: String, field: usize, token: Span) {
        self.push_value(label, field, token, false, false, None);
    }

    /// Appends `field`'s value after `label`, as a new segment or `glued`
    /// to the previous one.
    fn push_value(
        &mut self,
        label: String,
        field: usize,
        token: Span,
        glued: bool,
        unpadded: bool,
        bucket: Option<derived::TimeUnit>,
    ) {
        self.segments.push(Segment::Field {
            label,
            composite: self.composites.len(),
            glued,
        });
        self.composites.push(Composite {
            field,
            token,
            unpadded,
            bucket,
        });
    }

    fn remove_composites(&mut self, mut refused: impl FnMut(&Composite) -> bool) {
        let mut renumbered = Vec::new();
        let mut kept = 0;
        for c in &self.composites {
            renumbered.push((!refused(c)).then(|| {
                kept += 1;
                kept - 1
            }));
        }
        self.segments.retain_mut(|segment| match segment {
            Segment::Field { composite, .. } => match renumbered[*composite] {
                Some(new) => {
                    *composite = new;
                    true
                }
                None => false,
            },
            Segment::Literal(_) | Segment::Suffix(_) => true,
        });
        let mut position = 0;
        self.composites.retain(|_| {
            position += 1;
            renumbered[position - 1].is_some()
        });
    }
}

impl Index {
    /// The composed keys this index writes: an LSI's partition key is the
    /// table's.
    pub fn own_keys(&self) -> impl Iterator<Item = (&'static str, &Key)> {
        let local = self.kind == IndexKind::Local;
        self.keys()
            .filter(move |(which, _)| !(local && *which == "pk"))
    }

    /// The fields composing this index's own keys, each once, in field
    /// order.
    pub fn composite_fields(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .own_keys()
            .flat_map(|(_, key)| key.composites.iter().map(|c| c.field))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The optional (`Option<T>`) composites of this index's own keys, in
    /// field order: while one is `None`, the item is not in the index and
    /// none of its keys is written (a sparse index).
    pub fn optional_fields(&self, fields: &[Field]) -> Vec<usize> {
        let mut out = self.composite_fields();
        out.retain(|&f| fields[f].optional);
        out
    }

    /// The composed keys: none for a multi-attribute index.
    pub fn keys(&self) -> impl Iterator<Item = (&'static str, &Key)> {
        let composed = self.multi_attribute.is_none();
        std::iter::once(("pk", &self.pk))
            .chain(self.sk.iter().map(|k| ("sk", k)))
            .filter(move |_| composed)
    }
}

/// Builds the model, reporting what cannot be resolved. Cross-cutting rules
/// are `check.rs`'s.
pub fn build<'a>(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Entity<'a>> {
    let named = named_fields(cx, input)?;
    let raw = attr::read_entity(cx, &input.attrs);
    let fields: Vec<Field> = named
        .named
        .iter()
        .map(|f| build_field(cx, f, &raw))
        .collect();
    let name = raw
        .name
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| input.ident.to_string());
    let entity_casing = raw.casing.map_or(Casing::Lower, |c| c.0);
    let naming = Naming::new(&raw, &name, &fields);
    let primary = build_primary(cx, &naming, &raw, input, entity_casing);
    let indexes = raw
        .indexes
        .iter()
        .filter_map(|index| build_index(cx, &naming, index, &primary, entity_casing))
        .collect();

    let schema_version = naming.schema_version;
    let unique = managed::build_unique(cx, &raw.unique, &fields);
    let tenant = tenant::build(cx, raw.tenant.as_ref(), &fields);
    Some(Entity {
        ident: &input.ident,
        vis: &input.vis,
        krate: entity_crate_path(&raw),
        name: name.clone(),
        name_span: raw.name.as_ref().map_or(input.ident.span(), LitStr::span),
        version: raw.version.map_or(1, |v| v.0),
        schema: raw.schema.as_ref().map(LitStr::value).unwrap_or_default(),
        schema_span: raw.schema.as_ref().map(LitStr::span),
        schema_version,
        table: raw.table.clone(),
        identity_attribute: raw.identity_attribute.clone(),
        version_attribute: raw.version_attribute.clone(),
        version_is_string: raw.version_is_string.is_some_and(|v| v.0),
        upgrade_from: raw.upgrade_from.clone(),
        fields,
        primary,
        indexes,
        omit_setters: Vec::new(),
        omit_stages: Vec::new(),
        unique,
        omit_unique: Vec::new(),
        soft_delete: lifecycle::soft_delete(&raw.soft_delete),
        history: lifecycle::history(&raw.history),
        tenant,
    })
}

/// The fields of a non-generic struct with named fields; anything else is
/// reported and has no model.
fn named_fields<'a>(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<&'a syn::FieldsNamed> {
    let named = match &input.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(named),
            ..
        }) => named,
        _ => {
            cx.error(
                &input.ident,
                "`#[derive(Entity)]` needs a struct with named fields",
            );
            return None;
        }
    };
    if !input.generics.params.is_empty() {
        cx.error(
            &input.generics,
            "entities cannot be generic: their keys and item shape are fixed at compile time",
        );
        return None;
    }
    Some(named)
}

/// A field with its attribute name: `rename = "..."`, else the field's name
/// (raw identifiers unprefixed) under `rename_all`.
fn build_field<'a>(cx: &Ctxt, f: &'a syn::Field, raw: &attr::RawEntity) -> Field<'a> {
    let ident = f.ident.as_ref().expect("named field");
    let raw_field = attr::read_field(cx, &f.attrs);
    let attribute_span = raw_field.rename.as_ref().map_or(ident.span(), LitStr::span);
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
    let attribute = match (&raw_field.rename, raw.rename_all) {
        (Some(lit), _) => lit.value(),
        (None, Some(rule)) => rule.apply(&name),
        (None, None) => name,
    };
    let optional = managed::option_inner(&f.ty);
    Field {
        ident,
        ty: &f.ty,
        key_ty: optional.unwrap_or(&f.ty),
        optional: optional.is_some(),
        attribute,
        attribute_span,
        serde: raw_field.serde.is_some(),
        wide_int: raw_field.wide_int.is_some(),
        managed: raw_field.managed,
        lifecycle: raw_field.lifecycle,
        compress: raw_field.compress.map(|c| Compress {
            span: c.span,
            min: c.min,
        }),
        encrypt: raw_field.encrypt,
        sign: raw_field.sign,
    }
}

/// `#[entity(crate = "...")]`, else the runtime crate found from the
/// user's dependencies.
fn entity_crate_path(raw: &attr::RawEntity) -> TokenStream {
    match &raw.krate {
        Some(path) => quote!(#path),
        None => crate_path(),
    }
}

/// The table's keys, `#[pk]` and `#[sk]`.
fn build_primary(
    cx: &Ctxt,
    naming: &Naming,
    raw: &attr::RawEntity,
    input: &syn::DeriveInput,
    entity_casing: Casing,
) -> Index {
    // `#[entity(collection = ...)]`: the table's keys join a collection.
    let collection = collection_decl(&raw.collection, raw.clustered, entity_casing);
    let pk_role = collection.as_ref().map_or(Role::Plain, Role::CollectionPk);
    let sk_role = collection.as_ref().map_or(Role::Plain, Role::CollectionSk);
    let pk = match &raw.pk {
        Some(key) => naming.key(cx, key, "pk", entity_casing, pk_role),
        // A `#[pk]` that failed to parse has been reported already; the
        // fallback goes on with an empty key.
        None => {
            if !raw.pk_written {
                cx.error(&input.ident, "missing `#[pk(...)]`: every entity needs a partition key, such as `#[pk(user_id)]`");
            }
            naming.key(
                cx,
                &attr::empty_key(input.ident.span()),
                "pk",
                entity_casing,
                Role::Plain,
            )
        }
    };
    let sk = raw
        .sk
        .as_ref()
        .map(|key| naming.key(cx, key, "sk", entity_casing, sk_role));
    Index {
        name: Ident::new("primary", Span::call_site()),
        kind: IndexKind::Primary,
        physical: None,
        pk,
        sk,
        pk_written: true,
        collection,
        // A malformed `collection = ...` has been reported already.
        layout_written: raw.clustered.filter(|_| !raw.entity_errors).map(|c| c.1),
        multi_attribute: None,
        policy: attr::IndexPolicy::Preserve,
        policy_written: None,
        projection: None,
    }
}

fn build_index(
    cx: &Ctxt,
    naming: &Naming,
    raw: &attr::RawIndex,
    primary: &Index,
    entity_casing: Casing,
) -> Option<Index> {
    let name = raw.name.clone();
    let (kind, physical) = physical_index(cx, raw)?;
    let casing = raw.casing.map_or(entity_casing, |c| c.0);
    let collection = collection_decl(&raw.collection, raw.clustered, casing);
    let pk_role = collection.as_ref().map_or(Role::Plain, Role::CollectionPk);
    let sk_role = collection.as_ref().map_or(Role::Plain, Role::CollectionSk);
    let default_attr = |suffix: &str| format!("{}{suffix}", physical.value());
    match raw.multi_attribute {
        Some(span) if kind == IndexKind::Local => multi_attribute::refuse_on_local_index(cx, span),
        Some(_) => return Some(multi_attribute_index(cx, naming, raw, name, kind, physical)),
        None => {}
    }
    let pk = match (&raw.pk, kind) {
        (Some(key), _) => naming.key(cx, key, &default_attr("pk"), casing, pk_role),
        (None, IndexKind::Local) => primary.pk.clone(),
        (None, _) => {
            cx.error(
                &name,
                format!("index `{name}` needs a partition key: add `pk(field, ...)`"),
            );
            return None;
        }
    };
    let sk = raw
        .sk
        .as_ref()
        .map(|key| naming.key(cx, key, &default_attr("sk"), casing, sk_role));
    Some(Index {
        name,
        kind,
        physical: Some(physical),
        pk,
        sk,
        pk_written: raw.pk.is_some(),
        collection,
        // A malformed `collection = ...` has been reported already.
        layout_written: raw.clustered.filter(|_| !raw.had_errors).map(|c| c.1),
        multi_attribute: None,
        policy: raw.policy.map(|p| p.0).unwrap_or_default(),
        policy_written: raw.policy.map(|p| p.1),
        projection: projection::build(cx, raw.projection.as_ref(), naming.fields),
    })
}

/// A multi-attribute GSI: no composed keys.
fn multi_attribute_index(
    cx: &Ctxt,
    naming: &Naming,
    raw: &attr::RawIndex,
    name: Ident,
    kind: IndexKind,
    physical: LitStr,
) -> Index {
    let (multi, pk) = multi_attribute::build(cx, naming, raw);
    Index {
        name,
        kind,
        physical: Some(physical),
        pk,
        sk: None,
        pk_written: true,
        // Refused by the checks (`MultiAttribute::collection`).
        collection: None,
        layout_written: None,
        multi_attribute: Some(multi),
        policy: raw.policy.map(|p| p.0).unwrap_or_default(),
        policy_written: raw.policy.map(|p| p.1),
        projection: projection::build(cx, raw.projection.as_ref(), naming.fields),
    }
}

/// `gsi = "..."` or `lsi = "..."`: which kind of index, and its name.
fn physical_index(cx: &Ctxt, raw: &attr::RawIndex) -> Option<(IndexKind, LitStr)> {
    let Some((kind, physical)) = raw.physical.clone() else {
        if raw.had_errors {
            return None; // a misspelled `gsi`/`lsi` has been reported
        }
        let name = &raw.name;
        cx.error(
            name,
            format!(
                "index `{name}` needs its physical index: add `gsi = \"...\"` or `lsi = \"...\"`"
            ),
        );
        return None;
    };
    let kind = match kind {
        RawIndexKind::Global => IndexKind::Global,
        RawIndexKind::Local => IndexKind::Local,
    };
    Some((kind, physical))
}

/// Reads `collection` and `clustered`/`isolated` (of an index, or of the
/// table's keys).
fn collection_decl(
    collection: &Option<(Vec<String>, Span)>,
    clustered: Option<(bool, Span)>,
    casing: Casing,
) -> Option<CollectionDecl> {
    let (path, span) = collection.as_ref()?;
    Some(CollectionDecl {
        path: path.clone(),
        cased: path.iter().map(|p| casing.apply(p)).collect(),
        clustered: clustered.is_some_and(|(c, _)| c),
        span: *span,
    })
}

struct Naming<'n, 'a> {
    /// The missing schema is reported once, not once per key.
    schema_reported: std::cell::Cell<bool>,
    schema: Option<&'n LitStr>,
    schema_version: u32,
    entity: &'n str,
    entity_version: u32,
    fields: &'n [Field<'a>],
}

impl<'n, 'a> Naming<'n, 'a> {
    fn new(raw: &'n attr::RawEntity, entity: &'n str, fields: &'n [Field<'a>]) -> Self {
        Naming {
            // An `#[entity]` attribute with errors may have lost its schema.
            schema_reported: std::cell::Cell::new(raw.entity_errors),
            schema: raw.schema.as_ref(),
            schema_version: raw.schema_version.map_or(1, |v| v.0),
            entity,
            entity_version: raw.version.map_or(1, |v| v.0),
            fields,
        }
    }

    fn field(&self, cx: &Ctxt, ident: &Ident) -> Option<usize> {
        use syn::ext::IdentExt;
        let found = self
            .fields
            .iter()
            .position(|f| f.ident.unraw() == ident.unraw());
        if found.is_none() {
            let names: Vec<String> = self.fields.iter().map(|f| f.ident.to_string()).collect();
            cx.error(
                ident,
                format!(
                    "unknown field `{ident}` in key{}",
                    did_you_mean(&ident.to_string(), names.iter().map(String::as_str))
                ),
            );
        }
        found
    }

    fn key(
        &self,
        cx: &Ctxt,
        raw: &RawKey,
        default_attribute: &str,
        casing: Casing,
        role: Role,
    ) -> Key {
        let casing = raw.casing.map_or(casing, |c| c.0);
        let (attribute, span) = match &raw.attribute {
            Some(lit) => (lit.value(), lit.span()),
            None => (default_attribute.to_owned(), raw.span),
        };
        let mut key = Key {
            attribute,
            span,
            segments: Vec::new(),
            composites: Vec::new(),
            format: raw.format.clone(),
            casing_written: raw.casing.map(|c| c.1),
            number: raw.number,
            value_casing: raw.value_casing.filter(|c| c.0 != Casing::Preserve),
            shards: raw
                .shards
                .map(|s| Shards::new(s, raw.format.is_some(), casing)),
        };
        match &raw.format {
            Some(format) => {
                if let Some(first) = raw.composites.first() {
                    cx.error(first, "a key takes either a field list or `format = \"...\"`, not both: put the fields in the format as `{field}`");
                }
                self.parse_format(cx, format, &mut key);
            }
            None if raw.number.is_some() => self.number_key(cx, raw, &mut key),
            None => self.default_format(cx, raw, casing, role, &mut key),
        }
        if raw.number.is_some() {
            // A number-typed key holds the value alone, as plain decimal.
            for c in &mut key.composites {
                c.unpadded = true;
            }
        }
        key
    }

    /// `#[pk(user_id, number)]`: the value alone, no schema or labels.
    fn number_key(&self, cx: &Ctxt, raw: &RawKey, key: &mut Key) {
        for ident in &raw.composites {
            if let Some(field) = self.field(cx, ident) {
                key.push_field(String::new(), field, ident.span());
            }
        }
    }

    /// `$<schema>#v<version>#<entity>#<attr>_<value>#...` (seed 002's format).
    fn default_format(&self, cx: &Ctxt, raw: &RawKey, casing: Casing, role: Role, key: &mut Key) {
        let Some(schema) = self.schema else {
            if self.schema_reported.replace(true) {
                return;
            }
            cx.error_at(
                raw.span,
                "the default key format `$<schema>#v<version>#<entity>#...` needs a schema name: add `#[entity(schema = \"myapp\")]`, or give this key a `format = \"...\"`",
            );
            return;
        };
        key.segments.push(Segment::Literal(format!(
            "${}",
            casing.apply(&schema.value())
        )));
        key.segments.push(Segment::Literal(
            casing.apply(&format!("v{}", self.schema_version)),
        ));
        let versioned = || casing.apply(&format!("{}_{}", self.entity, self.entity_version));
        let names: Vec<String> = match role {
            Role::Plain => vec![casing.apply(self.entity)],
            // Every member of a collection shares the partition: the root
            // collection name stands where the entity name would.
            Role::CollectionPk(c) => vec![c.cased[0].clone()],
            Role::CollectionSk(c) if c.clustered => {
                c.cased.iter().cloned().chain([versioned()]).collect()
            }
            Role::CollectionSk(_) => vec![versioned()],
        };
        key.segments.extend(names.into_iter().map(Segment::Literal));
        for ident in &raw.composites {
            let Some(field) = self.field(cx, ident) else {
                continue;
            };
            let label = format!("{}_", casing.apply(&self.fields[field].attribute));
            key.push_field(label, field, ident.span());
        }
    }

    /// `USER#{user_id}`, `ORDER#{day}#{order_id}`, `profile`,
    /// `ORDER#{id}@{version}`, `{id}.{n:unpadded}`.
    fn parse_format(&self, cx: &Ctxt, format: &LitStr, key: &mut Key) {
        let text = format.value();
        for segment in format_segments(&text) {
            if segment.is_empty() {
                cx.error(
                    format,
                    "empty segment in key format: segments are separated by a single `#`",
                );
                continue;
            }
            if !segment.contains(['{', '}']) {
                key.segments.push(Segment::Literal(segment.to_owned()));
                continue;
            }
            self.parse_field_segment(cx, format, segment, key);
        }
    }

    /// A segment with fields: `label{field}`, then text and fields glued to
    /// it (`{id}@{version}`), then maybe trailing text (`{id}@latest`).
    fn parse_field_segment(&self, cx: &Ctxt, format: &LitStr, segment: &str, key: &mut Key) {
        let mut rest = segment;
        let mut first = true;
        loop {
            let Some(open) = rest.find('{') else {
                if rest.contains('}') {
                    cx.error(
                        format,
                        format!("unmatched `}}` in key format segment `{segment}`"),
                    );
                } else if !rest.is_empty() {
                    key.segments.push(Segment::Suffix(rest.to_owned()));
                }
                return;
            };
            let (label, after) = rest.split_at(open);
            let Some(close) = after.find('}') else {
                cx.error(
                    format,
                    format!("unmatched `{{` in key format segment `{segment}`"),
                );
                return;
            };
            let name = &after[1..close];
            if label.contains('}') || name.contains('{') {
                cx.error(
                    format,
                    format!("unmatched braces in key format segment `{segment}`"),
                );
                return;
            }
            if label.is_empty() && !first {
                cx.error(
                    format,
                    format!("two fields with nothing between them in `{segment}`: their values could not be told apart; put a separator between them, such as `{{a}}#{{b}}` or `{{a}}.{{b}}`"),
                );
                return;
            }
            self.parse_field(cx, format, name, label, !first, key);
            first = false;
            rest = &after[close + 1..];
        }
    }

    /// `field`, `field:unpadded` or a derived part (`field:month`) inside
    /// braces.
    fn parse_field(
        &self,
        cx: &Ctxt,
        format: &LitStr,
        name: &str,
        label: &str,
        glued: bool,
        key: &mut Key,
    ) {
        let (name, unpadded, bucket) = match name.split_once(':') {
            Some((name, "unpadded")) => (name, true, None),
            Some((name, option)) => match derived::TimeUnit::from_name(option) {
                Some(unit) => (name, false, Some(unit)),
                None => {
                    let options = ["unpadded", "year", "month", "day", "hour"];
                    cx.error(format, format!(
                        "unknown field option `{option}` in key format{}: the options are `{{field:unpadded}}` for integers and the derived parts `{{field:year}}`, `{{field:month}}`, `{{field:day}}`, `{{field:hour}}` for timestamps",
                        did_you_mean(option, options.into_iter())
                    ));
                    return;
                }
            },
            None => (name, false, None),
        };
        // `{type}` names the field `r#type`.
        let parsed: syn::Result<Ident> =
            syn::parse::Parser::parse_str(syn::ext::IdentExt::parse_any, name);
        let ident = match parsed {
            Ok(mut ident) => {
                ident.set_span(format.span());
                ident
            }
            Err(_) => {
                cx.error(format, format!("`{{{name}}}` is not a field name"));
                return;
            }
        };
        let Some(field) = self.field(cx, &ident) else {
            return;
        };
        key.push_value(
            label.to_owned(),
            field,
            format.span(),
            glued,
            unpadded,
            bucket,
        );
    }
}

/// A key format's `#`-separated segments. The `#` of a raw identifier's
/// `r#` (`{r#type}`, the field `r#type`, also spelled `{type}`) separates
/// nothing.
fn format_segments(text: &str) -> Vec<&str> {
    let mut segments = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices('#') {
        if !text[..i].ends_with("{r") {
            segments.push(&text[start..i]);
            start = i + 1;
        }
    }
    segments.push(&text[start..]);
    segments
}

/// The last path segment of a type (`Option` for `std::option::Option<T>`),
/// `&` for references, `()` for tuples.
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(_) => Some("&".to_owned()),
        syn::Type::Tuple(_) => Some("()".to_owned()),
        syn::Type::Group(group) => type_name(&group.elem),
        syn::Type::Paren(paren) => type_name(&paren.elem),
        _ => None,
    }
}

/// `::entity_core`, or wherever the user's crate reaches it.
pub fn crate_path() -> TokenStream {
    use proc_macro_crate::{crate_name, FoundCrate};
    for (package, reexport) in [("entity-core", false), ("entity-client", true)] {
        match crate_name(package) {
            Ok(FoundCrate::Itself) if !reexport => return quote!(::entity_core),
            Ok(FoundCrate::Itself) => return quote!(::entity_client),
            Ok(FoundCrate::Name(name)) => {
                let ident = Ident::new(&name, Span::call_site());
                return quote!(::#ident);
            }
            Err(_) => {}
        }
    }
    quote!(::entity_core)
}

/// The runtime crate's path: `#[entity(crate = "...")]` when given, else
/// found from the user's dependencies. Used where no model was built; a
/// malformed path has been reported by the model already.
pub fn crate_path_for_key_part(attrs: &[syn::Attribute]) -> TokenStream {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("entity")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: LitStr = meta.value()?.parse()?;
                found = lit.parse::<syn::Path>().ok().map(|p| quote!(#p));
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                // `unique(...)`
                let content;
                syn::parenthesized!(content in meta.input);
                let _: TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    found.unwrap_or_else(crate_path)
}
