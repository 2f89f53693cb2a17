//! Multi-attribute GSI keys: the typed accessor and its stages, and the
//! check that each key field's type is a native key type.
//!
//! `Order::by_region(tenant, region)` fixes every partition attribute;
//! stage `k` then offers sort attribute `k`: `status().eq(v)` fixes it and
//! moves to stage `k + 1`; `status().gt(v)` and the other ranges end the
//! query on it. The key condition compares native values
//! (`#k0 = :k0 AND #k1 = :k1 AND #k2 > :k2`), so numbers sort as numbers.

use crate::model::multi_attribute::{MultiAttribute, NativeAttribute};
use crate::model::{Entity, Index};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Ident;

/// The stage methods of its sort attributes, and `Order::by_region(..)`
/// (for the entity's inherent impl).
pub fn accessor(
    entity: &Entity,
    index: &Index,
    multi: &MultiAttribute,
    stage: &Ident,
) -> (TokenStream, TokenStream) {
    let krate = &entity.krate;
    let accessor = &index.name;
    let physical = index
        .physical
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let params = multi.pk.iter().map(|a| {
        let field = &entity.fields[a.field];
        let (name, ty) = (field.ident, field.ty);
        quote!(#name: impl ::core::convert::Into<<#ty as #krate::NativeKey>::Value>)
    });
    let values = multi.pk.iter().map(|a| {
        let field = &entity.fields[a.field];
        let (name, ty, attribute) = (field.ident, field.ty, &field.attribute);
        quote!((#attribute, <#ty as #krate::NativeKey>::key_value(::core::convert::Into::into(#name))))
    });
    let doc = format!(
        "Queries index `{physical}` on its partition attributes ({}). Narrow it by sort attributes, left to right.",
        list(entity, &multi.pk)
    );
    let stages = if entity.omit_stages.contains(&index.name.to_string()) {
        TokenStream::new()
    } else {
        let names: Vec<String> = (multi.sk.iter())
            .map(|a| entity.fields[a.field].ident.to_string())
            .collect();
        (0..multi.sk.len())
            .map(|k| sort_stage(entity, index, stage, multi, &names, k))
            .collect()
    };
    let accessor = quote! {
        #[doc = #doc]
        pub fn #accessor(#(#params),*) -> #stage<0> {
            let __entity_query = #krate::Query::multi_attribute(#physical, ::std::vec![#(#values),*]);
            #krate::__private::stage_of(__entity_query, "", "", false)
        }
    };
    (stages, accessor)
}

/// Sort attribute `k`'s methods: fix it and go on, or end on a range on
/// it. Attribute 0's are stage 0's; a later one's are on every stage,
/// bounded on its being next (`stage_order`).
fn sort_stage(
    entity: &Entity,
    index: &Index,
    stage: &Ident,
    multi: &MultiAttribute,
    names: &[String],
    k: usize,
) -> TokenStream {
    let at = (k, multi.sk[k].token);
    super::stage_order::composite_impl(entity, index, stage, names, at, |guard| {
        sort_methods(entity, stage, multi, k, guard)
    })
}

/// Sort attribute `k`'s method, with the `where` clause `guard`.
fn sort_methods(
    entity: &Entity,
    stage: &Ident,
    multi: &MultiAttribute,
    k: usize,
    guard: &TokenStream,
) -> TokenStream {
    let krate = &entity.krate;
    let field = &entity.fields[multi.sk[k].field];
    let (name, ty, attribute) = (field.ident, field.ty, &field.attribute);
    let n = multi.sk.len();
    let next = k + 1;
    // Numbers have no `begins_with`.
    let kind = (!is_textual(ty)).then(|| quote!(, #krate::sort_key::Numeric));
    let doc = format!(
        "`{name}`, the sort attribute {}/{n}: `.eq(v)` fixes it and moves on; a range ends the query.",
        k + 1
    );
    quote! {
        #[doc = #doc]
        pub fn #name(self) -> #krate::sort_key::NativeComposite<#stage<#next>, #ty #kind> #guard {
            #krate::__private::native_composite(self.q, #attribute)
        }
    }
}

/// A string or binary type (or an `Option` of one): it has `begins_with`.
fn is_textual(ty: &syn::Type) -> bool {
    let inner = match ty {
        syn::Type::Path(path) => path.path.segments.last().and_then(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(args) if s.ident == "Option" => {
                args.args.first().and_then(|a| match a {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
            }
            _ => None,
        }),
        _ => None,
    };
    let ty = inner.unwrap_or(ty);
    matches!(
        crate::model::type_name(ty).as_deref(),
        Some("String" | "Blob")
    )
}

fn list(entity: &Entity, attributes: &[NativeAttribute]) -> String {
    attributes
        .iter()
        .map(|a| format!("`{}`", entity.fields[a.field].ident))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each key field's type is a string, number or binary type, checked with
/// the error on its name in the key.
pub fn type_checks(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let mut checked = Vec::new();
    let mut checks = TokenStream::new();
    let multis = entity
        .indexes
        .iter()
        .filter_map(|i| i.multi_attribute.as_ref());
    for (a, _) in multis.flat_map(MultiAttribute::attributes) {
        if checked.contains(&a.field) {
            continue;
        }
        checked.push(a.field);
        let field_ty = entity.fields[a.field].ty;
        let ty = super::keys::respan(quote!(#field_ty), a.token);
        checks.extend(quote_spanned! {a.token=>
            #krate::__private::assert_native_key::<#ty>();
        });
    }
    checks
}
