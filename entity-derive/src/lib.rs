//! `#[derive(Entity)]` and `#[derive(KeyPart)]` for the DynamoDB single-table
//! entity framework. Use them through `entity-core` (or `entity-client`),
//! which re-export them; the attribute reference is in their docs.
//!
//! The derive is a small compiler: `attr` reads attributes into raw values,
//! `model` resolves them, `check` applies the cross-cutting rules, and
//! `expand` generates code from the model alone.

mod attr;
mod check;
mod ctxt;
mod expand;
mod key_part;
mod model;
mod union;

use proc_macro::TokenStream;

/// Derives `Entity`: key composers, parsers and guards, typed query
/// accessors, item conversion and the static model. See `entity_core`.
#[proc_macro_derive(Entity, attributes(entity, pk, sk, index))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let cx = ctxt::Ctxt::default();
    let entity = model::build(&cx, &input);
    if let Some(entity) = &entity {
        check::check(&cx, entity);
    }
    match entity {
        Some(entity) if !cx.has_errors() => expand::expand(&entity).into(),
        _ => {
            let krate = model::crate_path_for_key_part(&ctxt::Ctxt::default(), &input.attrs);
            let mut out = cx.into_compile_errors();
            if matches!(input.data, syn::Data::Struct(_)) && input.generics.params.is_empty() {
                out.extend(expand::fallback(&input, &krate));
            }
            out.into()
        }
    }
}

/// Derives `KeyPart`, `ToAttribute` and `FromAttribute` for a unit-only enum
/// (stored as the variant name, or `#[key_part(rename = "...")]`) or a
/// single-field newtype (stored as its inner value).
#[proc_macro_derive(KeyPart, attributes(key_part))]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match key_part::derive(&input) {
        Ok(tokens) | Err(tokens) => tokens.into(),
    }
}

/// Derives `Collection` for an enum whose variants are the member entities
/// of one collection: a typed query accessor, decoding into the enum, and
/// grouped results, with the members' agreement checked at compile time.
#[proc_macro_derive(Collection, attributes(collection))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    union::derive(&input).into()
}
