//! Multi-attribute GSI keys: the typed accessor and its stages, and the
//! check that each key field's type is a native key type.
//!
//! `Order::by_region(tenant, region)` fixes every partition attribute;
//! stage `k` then offers sort attribute `k`: `status(v)` fixes it and moves
//! to stage `k + 1`; `status_gt(v)` and friends end the query with a range
//! on it. The key condition compares native values
//! (`#k0 = :k0 AND #k1 = :k1 AND #k2 > :k2`), so numbers sort as numbers.

use crate::model::multi_attribute::{MultiAttribute, NativeAttribute};
use crate::model::{Entity, Index};
use proc_macro2::{Span, TokenStream};
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
            #stage { q: #krate::__private::KeyQuery::new(__entity_query, ::core::option::Option::None, "", false) }
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
    let output = super::view::output(entity, index);
    super::stage_order::composite_impl(entity, index, stage, names, at, |guard| {
        sort_methods(entity, (stage, &output), multi, k, guard)
    })
}

/// Sort attribute `k`'s methods, each with the `where` clause `guard`.
fn sort_methods(
    entity: &Entity,
    (stage, ident): (&Ident, &TokenStream),
    multi: &MultiAttribute,
    k: usize,
    guard: &TokenStream,
) -> TokenStream {
    let krate = &entity.krate;
    let field = &entity.fields[multi.sk[k].field];
    let (name, ty, attribute) = (field.ident, field.ty, &field.attribute);
    let n = multi.sk.len();
    let next = k + 1;
    let arg = quote!(impl ::core::convert::Into<<#ty as #krate::NativeKey>::Value>);
    let value = |v: TokenStream| quote!(<#ty as #krate::NativeKey>::key_value(::core::convert::Into::into(#v)));
    let v = value(quote!(value));
    let (low, high) = (value(quote!(low)), value(quote!(high)));
    let q = quote!(#krate::Query<#ident>);
    let op = quote!(#krate::NativeOp);
    let doc_fix = format!("Fixes `{name}`, the sort attribute {}/{n}.", k + 1);
    let compares = [
        ("gt", "Gt", ">"),
        ("gte", "Ge", ">="),
        ("lt", "Lt", "<"),
        ("lte", "Le", "<="),
    ]
    .map(|(suffix, variant, symbol)| {
        let method = op_name(name, suffix);
        let variant = Ident::new(variant, Span::call_site());
        let doc = format!("`{name}` {symbol} `value`.");
        quote! {
            #[doc = #doc]
            pub fn #method(self, value: #arg) -> #q #guard {
                self.q.native_compare(#attribute, #op::#variant, ::std::vec![#v])
            }
        }
    });
    let (eq, between, begins) = (
        op_name(name, "eq"),
        op_name(name, "between"),
        op_name(name, "begins_with"),
    );
    // Numbers have no `begins_with`.
    let begins_with = is_textual(ty).then(|| {
        quote! {
            #[doc = concat!("`", stringify!(#name), "` starts with `value`.")]
            pub fn #begins(self, value: #arg) -> #q #guard {
                self.q.native_compare(#attribute, #op::BeginsWith, ::std::vec![#v])
            }
        }
    });
    quote! {
            #[doc = #doc_fix]
            pub fn #name(self, value: #arg) -> #stage<#next> #guard {
                #stage { q: self.q.native_eq(#attribute, #v) }
            }

            #[doc = concat!("`", stringify!(#name), "` equals `value`.")]
            pub fn #eq(self, value: #arg) -> #q #guard {
                self.#name(value).build()
            }

            #(#compares)*

            #[doc = concat!("`low` <= `", stringify!(#name), "` <= `high`.")]
            pub fn #between(self, low: #arg, high: #arg) -> #q #guard {
                self.q.native_compare(#attribute, #op::Between, ::std::vec![#low, #high])
            }

            #begins_with
    }
}

/// `status_gt` for `status` (`type_gt` for `r#type`).
fn op_name(name: &Ident, suffix: &str) -> Ident {
    Ident::new(
        &format!("{}_{suffix}", name.to_string().trim_start_matches("r#")),
        Span::call_site(),
    )
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
