//! `#[derive(KeyPart)]`'s attributes: `#[key_part(crate = "...")]` on the
//! type and `#[key_part(rename = "...")]` on a variant.

use super::{crate_path, set_once, string, unknown};
use crate::ctxt::Ctxt;
use syn::LitStr;

/// `crate = "..."` on the type; `#[entity(crate)]` is read too, for types
/// that carry both derives.
pub fn read_key_part_container(cx: &Ctxt, attrs: &[syn::Attribute]) -> Option<syn::Path> {
    let mut krate = None;
    super::each_attribute(cx, attrs, "key_part", |meta| {
        match super::key_name(meta).as_str() {
            "crate" => set_once(cx, meta, &mut krate, crate_path(cx, meta)?),
            _ => return unknown(cx, meta, "`#[key_part]`", &["crate"]),
        }
        Ok(())
    });
    krate
}

/// `rename = "..."` on a variant.
pub fn read_variant_rename(cx: &Ctxt, attrs: &[syn::Attribute]) -> Option<LitStr> {
    let mut rename = None;
    super::each_attribute(cx, attrs, "key_part", |meta| {
        match super::key_name(meta).as_str() {
            "rename" => set_once(cx, meta, &mut rename, string(cx, meta)?),
            _ => return unknown(cx, meta, "`#[key_part]`", &["rename"]),
        }
        Ok(())
    });
    rename
}
