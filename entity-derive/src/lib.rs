//! `#[derive(Entity)]`, `#[derive(KeyPart)]` and `#[derive(Collection)]`
//! for the DynamoDB single-table entity framework. Use them through
//! `entity-core` (or `entity-client`), which re-export them; the attribute
//! reference is in their docs.
//!
//! Each derive is the same small compiler: `attr` reads attributes into raw
//! values, `model` resolves them, `check` applies the rules, and `expand`
//! generates code from the model alone. Errors accumulate in one `Ctxt`;
//! when there are any, a fallback expansion stands in for the generated API
//! so that one mistake gives one error.

mod attr;
mod check;
mod ctxt;
mod expand;
mod model;

use proc_macro::TokenStream;

/// Derives `Entity`: key composers, parsers and guards, typed query
/// accessors, item conversion and the static model.
///
/// Every attribute it reads (`#[entity(..)]`, `#[pk(..)]`, `#[sk(..)]`,
/// `#[index(..)]`) is described in `entity_client::guide::attributes`.
#[proc_macro_derive(Entity, attributes(entity, pk, sk, index))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let cx = ctxt::Ctxt::new();
    let entity = model::build(&cx, &input);
    let skipped = entity.as_ref().map(|e| check::check(&cx, e));
    match (cx.check(), entity, skipped) {
        (Ok(()), Some(entity), _) => expand::expand(&entity),
        (Err(errors), Some(mut entity), Some(skipped)) => {
            entity.drop_refused_composites();
            entity.omit(skipped);
            let mut out = errors;
            out.extend(expand::fallback(&entity));
            out
        }
        (Err(errors), _, _) => {
            let mut out = errors;
            out.extend(expand::minimal_fallback(&input));
            out
        }
        (Ok(()), None, _) => unreachable!("a model that failed to build reports why"),
    }
    .into()
}

/// Derives `KeyPart`, `ToAttribute` and `FromAttribute` for a unit-only enum
/// (stored as the variant name, or `#[key_part(rename = "...")]`) or a
/// single-field newtype (stored as its inner value).
#[proc_macro_derive(KeyPart, attributes(key_part))]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let cx = ctxt::Ctxt::new();
    let model = model::key_part::build(&cx, &input);
    check::key_part::check(&cx, &model);
    match cx.check() {
        Ok(()) => expand::key_part::expand(&model),
        Err(mut errors) => {
            errors.extend(expand::key_part::fallback(&model));
            errors
        }
    }
    .into()
}

/// Derives `Collection` for an enum whose variants are the member entities
/// of one collection: a typed query accessor, decoding into the enum, and
/// grouped results, with the members' agreement checked at compile time.
#[proc_macro_derive(Collection, attributes(collection))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let cx = ctxt::Ctxt::new();
    let union = model::collection::build(&cx, &input);
    if let Some(union) = &union {
        check::collection::check(&cx, union);
    }
    match (cx.check(), union) {
        (Ok(()), Some(union)) => expand::union::expand(&union),
        (Err(errors), _) => errors,
        (Ok(()), None) => unreachable!("a model that failed to build reports why"),
    }
    .into()
}
