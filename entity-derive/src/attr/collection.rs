//! `#[derive(Collection)]`'s attribute: `#[collection(name = "...",
//! pk(field: Type, ...), crate = "...")]`, read into raw values.

use super::{crate_path, set_once, string_path, unknown};
use crate::ctxt::Ctxt;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Token, Type};

/// One partition key composite of a collection, `tenant_id: String`.
pub struct PkField {
    pub name: Ident,
    pub ty: Type,
}

impl Parse for PkField {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![:]>()?;
        Ok(PkField {
            name,
            ty: input.parse()?,
        })
    }
}

#[derive(Default)]
pub struct RawCollection {
    /// The `#[collection]` attribute, when written.
    pub written: Option<syn::Attribute>,
    /// Reading it reported errors: follow-on checks stay quiet.
    pub had_errors: bool,
    /// `name` was written (even if malformed).
    pub name_written: bool,
    pub path: Option<Vec<String>>,
    pub pk: Option<Vec<PkField>>,
    pub krate: Option<syn::Path>,
}

const COLLECTION_KEYS: [&str; 3] = ["name", "pk", "crate"];

pub fn read_collection(cx: &Ctxt, attrs: &[syn::Attribute]) -> RawCollection {
    let mut raw = RawCollection {
        written: attrs
            .iter()
            .find(|a| a.path().is_ident("collection"))
            .cloned(),
        ..RawCollection::default()
    };
    raw.had_errors =
        super::each_attribute(cx, attrs, "collection", |meta| read_key(cx, &mut raw, meta));
    raw
}

fn read_key(cx: &Ctxt, raw: &mut RawCollection, meta: &ParseNestedMeta) -> syn::Result<()> {
    match super::key_name(meta).as_str() {
        "name" => {
            raw.name_written = true;
            let expr: syn::Expr = meta.value()?.parse()?;
            let path = string_path(&expr);
            if path.is_none() {
                cx.error(&expr, "`name` is the collection's name, or the path of a sub-collection: `name = [\"contributions\", \"assignments\"]`");
            }
            set_once(cx, meta, &mut raw.path, path);
        }
        "pk" => {
            let content;
            syn::parenthesized!(content in meta.input);
            let fields: Punctuated<PkField, Token![,]> =
                content.parse_terminated(PkField::parse, Token![,])?;
            set_once(cx, meta, &mut raw.pk, Some(fields.into_iter().collect()));
        }
        "crate" => set_once(cx, meta, &mut raw.krate, crate_path(cx, meta)?),
        _ => return unknown(cx, meta, "`#[collection]`", &COLLECTION_KEYS),
    }
    Ok(())
}
