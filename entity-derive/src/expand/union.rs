//! `#[derive(Collection)]`'s code: `const` assertions for what only the
//! members know (physical index, key attributes, layout, partition key
//! composites and their types, entity names, sort key prefixes), each
//! spanned on the member it is about, then the query accessor, decoding
//! into the enum and grouped results.

use crate::model::collection::Union;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, Type};

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

pub fn expand(union: &Union) -> TokenStream {
    let path = &union.path;
    let members = union.entities();
    let checks = member_checks(union, &members);
    let api = api(union, &members);
    quote! {
        // The checks are spanned on the members, so lints would read them as
        // user code.
        #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
        const _: () = {
            const __ENTITY_PATH: &[&str] = &[#(#path),*];
            #checks
        };
        #api
    }
}

/// The `const` assertions on the members' agreement.
fn member_checks(union: &Union, members: &[(&Ident, &Type)]) -> TokenStream {
    let krate = &union.krate;
    let c = quote!(#krate::collection);
    let h = quote!(#krate::__private::collection);
    let path = &union.path;
    let display = path.join(" > ");
    let pk_names: Vec<String> = union.pk.iter().map(|f| f.name.to_string()).collect();
    let pk_list = pk_names.join(", ");
    let pk_types: Vec<&Type> = union.pk.iter().map(|f| &f.ty).collect();
    let idx: Vec<Ident> = (0..members.len())
        .map(|i| format_ident!("__ENTITY_IDX_{}", i))
        .collect();
    let spec: Vec<Ident> = (0..members.len())
        .map(|i| format_ident!("__ENTITY_SPEC_{}", i))
        .collect();
    let agrees: Vec<Ident> = (0..members.len())
        .map(|i| format_ident!("__ENTITY_AGREES_{}", i))
        .collect();
    let mut checks = TokenStream::new();
    for (i, &(_, ty)) in members.iter().enumerate() {
        let (idx_i, spec_i, agrees_i) = (&idx[i], &spec[i], &agrees[i]);
        let name = ty.to_token_stream().to_string();
        let span = ty.span();
        let not_member = format!("`{name}` is not in collection `{display}`: add `collection = {}` to one of its indexes", collection_literal(path));
        let wrong_pk = format!("`{name}` composes the partition key of `{display}` from other fields than the collection's `pk({pk_list})`: give its collection index `pk({pk_list})`");
        let pk_idx = format_ident!("__ENTITY_PK_IDX_{}", i);
        checks.extend(quote_spanned! {span=>
            const #idx_i: usize = #h::find(<#ty as #krate::CollectionMember>::COLLECTIONS, __ENTITY_PATH);
            const #spec_i: &#c::CollectionSpec = #h::spec_at(<#ty as #krate::CollectionMember>::COLLECTIONS, #idx_i);
            const _: () = ::core::assert!(#idx_i != usize::MAX, #not_member);
            const _: () = ::core::assert!(#idx_i == usize::MAX || #h::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]), #wrong_pk);
            // The composite types are compared only when the names agree:
            // other names are reported above, once.
            const #pk_idx: usize = if #idx_i != usize::MAX && #h::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]) { #idx_i } else { usize::MAX };
            const _: fn() = || {
                fn same<A: #c::SameTypes<B>, B>() {}
                same::<<#ty as #c::CollectionPk<#pk_idx>>::Pk, (#(#pk_types,)*)>();
            };
        });
        // The layout (physical index, key attributes, clustered) is compared
        // with the first earlier member in the collection only, and stops at
        // the first difference: one mistake, one error.
        let mut agree = quote!(#idx_i != usize::MAX);
        for (j, &(_, other_ty)) in members.iter().enumerate().take(i) {
            let other_name = other_ty.to_token_stream().to_string();
            let (idx_j, spec_j) = (&idx[j], &spec[j]);
            let earlier = &idx[..j];
            let reference = quote!(#idx_j != usize::MAX #(&& #earlier == usize::MAX)*);
            let layout = [
                (quote!(#h::str_eq(#spec_i.index_name, #spec_j.index_name)), format!("`{name}` and `{other_name}` join `{display}` on different physical indexes: declare the collection on the same `gsi = \"...\"` in both")),
                (quote!(#h::str_eq(#spec_i.pk_attribute, #spec_j.pk_attribute)), format!("`{name}` and `{other_name}` join `{display}` with different partition key attributes: give both indexes the same `pk(attr = \"...\")`")),
                (quote!(#h::str_eq(#spec_i.sk_attribute, #spec_j.sk_attribute)), format!("`{name}` and `{other_name}` join `{display}` with different sort key attributes: give both indexes the same `sk(attr = \"...\")`")),
                (quote!(#spec_i.clustered == #spec_j.clustered), format!("`{name}` and `{other_name}` share an index of `{display}`, but one is clustered and one isolated: mark both `clustered` or neither")),
                // The partition key text: the query composes it from the first
                // member, so any difference (schema, versions, casing, attribute
                // names) would put a member in another partition.
                // (Reported only when both compose from the declared fields;
                // a field mismatch has its own error.)
                (quote!(!(#h::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]) && #h::strs_eq(#spec_j.pk_fields, &[#(#pk_names),*])) || #h::strs_eq(#spec_i.pk_texts, #spec_j.pk_texts)), format!("`{name}` and `{other_name}` compose the `{display}` partition key with different text (schema, schema version, casing or attribute names), so they would live in different partitions: give them the same `#[entity(schema, schema_version, casing, rename_all)]`")),
            ];
            let mut prior = quote!(#idx_i != usize::MAX && #reference);
            for (condition, message) in layout {
                checks.extend(quote_spanned! {span=>
                    const _: () = ::core::assert!(!(#prior) || #condition, #message);
                });
                prior = quote!(#prior && #condition);
            }
            agree = quote!(#agree && (!(#reference) || (#prior)));
        }
        checks.extend(quote_spanned! {span=>
            const #agrees_i: bool = #agree;
        });
        // Names and sort key prefixes are compared with every earlier member
        // that agrees on the layout; each member reports its first clash.
        let mut clashes = Vec::new();
        for (j, &(_, other_ty)) in members.iter().enumerate().take(i) {
            let other_name = other_ty.to_token_stream().to_string();
            let (spec_j, agrees_j) = (&spec[j], &agrees[j]);
            let clash = format_ident!("__ENTITY_CLASH_{}_{}", i, j);
            let same_name = quote!(#h::str_eq(<#ty as #krate::Entity>::MODEL.name, <#other_ty as #krate::Entity>::MODEL.name));
            let same_name_message = format!("`{name}` and `{other_name}` are stored under the same entity name, so their items cannot be told apart: give one `#[entity(name = \"...\")]`");
            let prefix_message = format!("the sort key prefix of `{name}` or `{other_name}` in `{display}` starts with the other's, so a query for one would return the other's items: rename one of the entities (`#[entity(name = \"...\")]`) or change its version");
            let first = quote!(#clash #(&& !#clashes)*);
            checks.extend(quote_spanned! {span=>
                const #clash: bool = #agrees_i && #agrees_j && (#same_name
                    || #h::str_starts_with(#spec_i.sk_prefix, #spec_j.sk_prefix)
                    || #h::str_starts_with(#spec_j.sk_prefix, #spec_i.sk_prefix));
                const _: () = ::core::assert!(!(#first && #same_name), #same_name_message);
                const _: () = ::core::assert!(!(#first && !#same_name), #prefix_message);
            });
            clashes.push(clash);
        }
    }

    checks
}

/// The query accessor, the grouped results and the trait impls.
fn api(union: &Union, members: &[(&Ident, &Type)]) -> TokenStream {
    let krate = &union.krate;
    let h = quote!(#krate::__private::collection);
    let ident = union.ident;
    let vis = union.vis;
    let path = &union.path;
    let display = path.join(" > ");
    let pk_names: Vec<String> = union.pk.iter().map(|f| f.name.to_string()).collect();
    let pk_list = pk_names.join(", ");
    let first = members.first().map(|m| m.1);
    let variants: Vec<&Ident> = members.iter().map(|m| m.0).collect();
    let types: Vec<&Type> = members.iter().map(|m| m.1).collect();
    let groups: Vec<Ident> = variants
        .iter()
        .map(|v| format_ident!("{}", snake(&v.to_string())))
        .collect();
    let grouped = format_ident!("{}Items", ident);
    let params = union.pk.iter().map(|f| {
        let (name, ty) = (&f.name, &f.ty);
        quote!(#name: impl #krate::KeyArg<#ty>)
    });
    let encoders = union.pk.iter().map(|f| {
        let (name, ty) = (&f.name, &f.ty);
        quote!(&|out: &mut ::std::string::String| #krate::KeyArg::<#ty>::encode_arg(&#name, out))
    });
    let depth = path.len();
    let doc_query = format!(
        "Queries collection `{display}`: every member's items in the partition of `{pk_list}`."
    );
    let doc_grouped = format!("The results of a `{ident}` query, one `Vec` per member.");
    let query = match first {
        Some(first) => quote! {
            #[doc = #doc_query]
            pub fn query(#(#params),*) -> #krate::Query<Self> {
                let spec = #h::spec_at(<#first as #krate::CollectionMember>::COLLECTIONS, #h::find(<#first as #krate::CollectionMember>::COLLECTIONS, &[#(#path),*]));
                let pk = #h::compose_pk(spec, &[#(#encoders),*]);
                let query = #krate::Query::new(::core::option::Option::Some(spec.index_name), spec.pk_attribute, pk);
                match spec.collection_prefixes.get(#depth - 1) {
                    // Clustered: the collection's own sort key prefix, closed
                    // by the separator so `tenantmembers` never matches
                    // `tenantmembersx`.
                    ::core::option::Option::Some(prefix) if spec.clustered => query.with_sort(
                        spec.sk_attribute,
                        #krate::SortCondition::BeginsWith(::std::format!("{}#", prefix)),
                    ),
                    _ => query,
                }
            }
        },
        None => TokenStream::new(),
    };
    quote! {
        #[doc = #doc_grouped]
        #[derive(Default)]
        #vis struct #grouped {
            #(
                #[doc = concat!("The `", stringify!(#types), "` items.")]
                pub #groups: ::std::vec::Vec<#types>,
            )*
        }

        #[automatically_derived]
        impl #ident {
            #query
        }

        #[automatically_derived]
        impl #krate::Readable for #ident {
            const TYPE_NAME: &'static str = #display;

            fn identity_filter() -> ::core::option::Option<(&'static str, &'static str)> {
                ::core::option::Option::None
            }

            fn read(item: #krate::Item) -> ::core::result::Result<::core::option::Option<Self>, #krate::DecodeError> {
                <Self as #krate::Collection>::decode(item)
            }

            fn key_attributes() -> ::std::vec::Vec<&'static str> {
                <Self as #krate::Collection>::key_attributes()
            }
        }

        #[automatically_derived]
        impl #krate::Collection for #ident {
            const PATH: &'static [&'static str] = &[#(#path),*];
            type Grouped = #grouped;

            fn decode(item: #krate::Item) -> ::core::result::Result<::core::option::Option<Self>, #krate::DecodeError> {
                // Which member, found without copying the name.
                let member = match item.get(<#first as #krate::Entity>::MODEL.identity_attribute) {
                    ::core::option::Option::Some(#krate::__private::AttributeValue::S(name)) => {
                        [#(<#types as #krate::Entity>::MODEL.name),*].iter().position(|member| *member == name.as_str())
                    }
                    _ => ::core::option::Option::None,
                };
                let mut __entity_position = 0usize;
                #(
                    if member == ::core::option::Option::Some(__entity_position) {
                        return <#types as #krate::Entity>::from_item(item).map(|e| ::core::option::Option::Some(Self::#variants(e)));
                    }
                    __entity_position += 1;
                )*
                let _ = __entity_position;
                ::core::result::Result::Ok(::core::option::Option::None)
            }

            fn group(self, grouped: &mut Self::Grouped) {
                match self {
                    #(Self::#variants(e) => grouped.#groups.push(e),)*
                }
            }

            fn key_attributes() -> ::std::vec::Vec<&'static str> {
                let mut out = ::std::vec::Vec::new();
                #(
                    for attribute in <#types as #krate::Entity>::MODEL.key_attributes() {
                        if !out.contains(&attribute) {
                            out.push(attribute);
                        }
                    }
                )*
                out
            }
        }
    }
}

fn collection_literal(path: &[String]) -> String {
    if path.len() == 1 {
        format!("\"{}\"", path[0])
    } else {
        format!(
            "[{}]",
            path.iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}
