//! The model of a `#[derive(KeyPart)]` type: a unit-only enum (stored as
//! its variant names) or a single-field newtype (stored as its inner value).

use crate::attr::{read_key_part_container, read_variant_rename};
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Ident, Type};

pub struct KeyPartType<'a> {
    pub input: &'a DeriveInput,
    pub krate: TokenStream,
    pub shape: Shape<'a>,
}

pub enum Shape<'a> {
    /// Variants with their stored names.
    Enum(Vec<Variant<'a>>),
    Newtype(&'a Type),
    /// Neither: reported by the checks.
    Other,
}

pub struct Variant<'a> {
    pub variant: &'a syn::Variant,
    pub stored: String,
}

impl KeyPartType<'_> {
    pub fn ident(&self) -> &Ident {
        &self.input.ident
    }
}

pub fn build<'a>(cx: &Ctxt, input: &'a DeriveInput) -> KeyPartType<'a> {
    let krate = read_key_part_container(cx, &input.attrs)
        .map_or_else(crate::model::crate_path, |p| quote!(#p));
    let shape = match &input.data {
        Data::Enum(data) => Shape::Enum(
            data.variants
                .iter()
                .map(|variant| Variant {
                    variant,
                    stored: read_variant_rename(cx, &variant.attrs)
                        .map_or_else(|| variant.ident.to_string(), |lit| lit.value()),
                })
                .collect(),
        ),
        Data::Struct(data) => match &data.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => Shape::Newtype(&f.unnamed[0].ty),
            _ => Shape::Other,
        },
        Data::Union(_) => Shape::Other,
    };
    KeyPartType {
        input,
        krate,
        shape,
    }
}
