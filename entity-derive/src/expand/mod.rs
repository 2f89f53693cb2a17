//! Stage 3: code generation. Reads only the model; raises no user-facing
//! errors. One file per generated piece.

mod accessors;
mod collection;
mod fields;
mod item;
mod keys;
mod model;

use crate::model::{Entity, Field, Index, Key};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

pub fn expand(entity: &Entity) -> TokenStream {
    let keys = keys::expand(entity);
    let accessors = accessors::expand(entity);
    let item = item::expand(entity);
    let fields = fields::expand(entity);
    let collections = collection::expand(entity);
    let model = model::expand(entity);
    let krate = &entity.krate;
    let ident = entity.ident;
    quote! {
        #keys
        #accessors
        #fields
        #collections
        #[automatically_derived]
        impl #krate::Entity for #ident {
            #model
            #item
        }
    }
}

/// What stands in for a failed derive, so that one bad attribute gives its
/// own errors and not a cascade of "`Task: Entity` is not satisfied".
pub fn fallback(input: &syn::DeriveInput, krate: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    quote! {
        #[automatically_derived]
        impl #krate::Entity for #ident {
            const MODEL: &'static #krate::EntityModel = &#krate::EntityModel {
                name: "",
                version: 0,
                schema: "",
                schema_version: 0,
                table: ::core::option::Option::None,
                identity_attribute: "",
                version_attribute: "",
                primary: #krate::IndexModel {
                    name: "primary",
                    index_name: ::core::option::Option::None,
                    kind: #krate::IndexKind::Primary,
                    pk: #krate::KeyModel { attribute: "", composites: &[], template: "" },
                    sk: ::core::option::Option::None,
                },
                indexes: &[],
                fields: &[],
            };
            fn to_item(&self) -> ::core::result::Result<#krate::Item, #krate::EncodeError> {
                ::core::unimplemented!()
            }
            fn from_item(_: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
                ::core::unimplemented!()
            }
            fn primary_key(&self) -> #krate::PrimaryKey<Self> {
                ::core::unimplemented!()
            }
            fn key_fields(_: &#krate::PrimaryKey<Self>) -> #krate::Item {
                ::core::unimplemented!()
            }
        }

        #[automatically_derived]
        impl #krate::CollectionMember for #ident {
            const COLLECTIONS: &'static [#krate::collection::CollectionSpec] = &[];
        }

        #[automatically_derived]
        impl #krate::collection::CollectionPk<{ usize::MAX }> for #ident {
            type Pk = #krate::collection::NotAMember;
        }
    }
}

/// Method-name prefix of an index's keys: none for the table, `by_x_` for an
/// index.
fn key_prefix(index: &Index) -> String {
    if index.physical.is_none() {
        String::new()
    } else {
        format!("{}_", index.name)
    }
}

/// The names of one key's generated functions.
struct KeyNames {
    /// `pk` / `by_project_sk`: the instance composer.
    compose: Ident,
    /// `pk_of`: the composer from arguments.
    compose_of: Ident,
    /// `parse_pk`.
    parse: Ident,
    /// `is_pk`.
    guard: Ident,
}

fn key_names(index: &Index, which: &str) -> KeyNames {
    let base = format!("{}{which}", key_prefix(index));
    KeyNames {
        compose: Ident::new(&base, Span::call_site()),
        compose_of: format_ident!("{}_of", base),
        parse: format_ident!("parse_{}", base),
        guard: format_ident!("is_{}", base),
    }
}

/// `field: impl KeyArg<Ty>` for each composite.
fn key_params(entity: &Entity, key: &Key) -> Vec<TokenStream> {
    let krate = &entity.krate;
    key.composites
        .iter()
        .map(|c| {
            let Field { ident, ty, .. } = &entity.fields[c.field];
            quote!(#ident: impl #krate::KeyArg<#ty>)
        })
        .collect()
}

fn composite_fields<'e>(entity: &'e Entity, key: &Key) -> Vec<&'e Field<'e>> {
    key.composites
        .iter()
        .map(|c| &entity.fields[c.field])
        .collect()
}

/// `by_project` → `ByProject`, for generated type names.
fn pascal(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
