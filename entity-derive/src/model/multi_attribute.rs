//! Multi-attribute GSI keys: `#[index(by_region(gsi = "gsi3",
//! multi_attribute, pk(tenant_id, region), sk(status, priority)))]`.
//!
//! Such a key composes no text: each attribute is a field's own attribute,
//! listed in the index's key schema (up to four `HASH`, then up to four
//! `RANGE`). The index keeps an empty placeholder `pk` and no `sk`, and
//! [`super::Index::keys`] yields nothing for it, so no composed-key code
//! (compose methods, key writes, key part checks) sees it.

use super::{Key, Naming, Role};
use crate::attr::{self, RawIndex, RawKey};
use crate::ctxt::Ctxt;
use proc_macro2::Span;

/// The attributes of a multi-attribute key, in key order.
pub struct MultiAttribute {
    pub pk: Vec<NativeAttribute>,
    pub sk: Vec<NativeAttribute>,
    /// The `pk(...)` token (for an empty partition).
    pub pk_span: Span,
    /// `collection = ...`, which a native key cannot join.
    pub collection: Option<Span>,
    /// Options written on its keys that a native key has no use for:
    /// their token and name (`format`, `casing`, `attr`, ...).
    pub refused_options: Vec<(Span, &'static str)>,
}

/// One key attribute: a field, stored as itself.
pub struct NativeAttribute {
    pub field: usize,
    /// Where the field is named in the key.
    pub token: Span,
}

impl MultiAttribute {
    /// Partition attributes, then sort attributes, each with whether it is
    /// a sort one.
    pub fn attributes(&self) -> impl Iterator<Item = (&NativeAttribute, bool)> {
        let pk = self.pk.iter().map(|a| (a, false));
        pk.chain(self.sk.iter().map(|a| (a, true)))
    }
}

/// The model of a multi-attribute index, and its placeholder partition key.
pub(super) fn build(cx: &Ctxt, naming: &Naming, raw: &RawIndex) -> (MultiAttribute, Key) {
    let mut refused_options = Vec::new();
    if let Some((_, casing)) = raw.casing {
        refused_options.push((casing, "casing"));
    }
    let mut attributes = |key: Option<&RawKey>| -> Vec<NativeAttribute> {
        let Some(key) = key else { return Vec::new() };
        refused_options.extend(refused_key_options(key));
        key.composites
            .iter()
            .filter_map(|ident| {
                let field = naming.field(cx, ident)?;
                Some(NativeAttribute {
                    field,
                    token: ident.span(),
                })
            })
            .collect()
    };
    let pk = attributes(raw.pk.as_ref());
    let sk = attributes(raw.sk.as_ref());
    let pk_span = raw.pk.as_ref().map_or(raw.name.span(), |k| k.span);
    let first = pk
        .first()
        .map_or_else(String::new, |a| naming.fields[a.field].attribute.clone());
    // A key with no text: `number` keeps `naming.key` from composing one.
    let mut placeholder = attr::empty_key(pk_span);
    placeholder.number = Some(pk_span);
    let mut key = naming.key(
        cx,
        &placeholder,
        &first,
        super::Casing::Preserve,
        Role::Plain,
    );
    key.number = None;
    let multi = MultiAttribute {
        collection: raw.collection.as_ref().map(|c| c.1),
        pk,
        sk,
        pk_span,
        refused_options,
    };
    (multi, key)
}

/// `format`, `casing`, `attr`, `number` and `value_casing` shape composed
/// key text; a native key attribute has none.
fn refused_key_options(key: &RawKey) -> Vec<(Span, &'static str)> {
    let mut out = Vec::new();
    if let Some(lit) = &key.attribute {
        out.push((lit.span(), "attr"));
    }
    if let Some(lit) = &key.format {
        out.push((lit.span(), "format"));
    }
    if let Some((_, span)) = key.casing {
        out.push((span, "casing"));
    }
    if let Some(span) = key.number {
        out.push((span, "number"));
    }
    if let Some((_, span)) = key.value_casing {
        out.push((span, "value_casing"));
    }
    if let Some(shards) = key.shards {
        out.push((shards.token, "shards"));
    }
    out
}

/// `multi_attribute` on a local index is reported, and the index is read as
/// a composed one: DynamoDB takes multi-attribute keys on GSIs only.
pub(super) fn refuse_on_local_index(cx: &Ctxt, span: Span) {
    cx.error_at(
        span,
        "`multi_attribute` is for global secondary indexes (`gsi = \"...\"`): a local index shares the table's partition key and has one sort attribute",
    );
}
