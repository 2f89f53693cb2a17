//! `#[derive(Collection)]`: a typed union of the entities of one collection.
//!
//! The derive reads the enum (attributes → model), checks what it can see
//! itself (variant shapes, the same entity twice), and generates `const`
//! assertions for what only the members know (physical index, key
//! attributes, layout, partition key composites and their types, entity
//! names, sort key prefixes). Each assertion is spanned on the member it is
//! about and says what to change.

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Token, Type};

struct PkField {
    name: Ident,
    ty: Type,
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

struct Member<'a> {
    variant: &'a Ident,
    ty: &'a Type,
}

struct Union<'a> {
    ident: &'a Ident,
    vis: &'a syn::Visibility,
    krate: TokenStream,
    path: Vec<String>,
    pk: Vec<PkField>,
    members: Vec<Member<'a>>,
}

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    match read(&cx, input) {
        Some(union) if !cx.has_errors() => expand(&union),
        _ => cx.into_compile_errors(),
    }
}

fn read<'a>(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Union<'a>> {
    let syn::Data::Enum(data) = &input.data else {
        cx.error(&input.ident, "`#[derive(Collection)]` goes on an enum whose variants are the member entities: `enum TenantMembers { Employee(Employee), Task(Task) }`");
        return None;
    };
    if !input.generics.params.is_empty() {
        cx.error(&input.generics, "a collection cannot be generic");
    }
    let mut path: Option<Vec<String>> = None;
    let mut name_written = false;
    let mut pk: Option<Vec<PkField>> = None;
    let mut krate = None;
    let attr = input.attrs.iter().find(|a| a.path().is_ident("collection"));
    let Some(attr) = attr else {
        cx.error(&input.ident, "add `#[collection(name = \"...\", pk(field: Type, ...))]`: the collection's name and its partition key composites");
        return None;
    };
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            name_written = true;
            let expr: syn::Expr = meta.value()?.parse()?;
            let text = |e: &syn::Expr| match e {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            };
            path = match &expr {
                syn::Expr::Array(array) => array.elems.iter().map(text).collect(),
                other => text(other).map(|s| vec![s]),
            };
            if path.as_ref().is_none_or(|p| p.is_empty()) {
                cx.error(&expr, "`name` is the collection's name, or the path of a sub-collection: `name = [\"contributions\", \"assignments\"]`");
            }
        } else if meta.path.is_ident("pk") {
            let content;
            syn::parenthesized!(content in meta.input);
            let fields: Punctuated<PkField, Token![,]> = content.parse_terminated(PkField::parse, Token![,])?;
            pk = Some(fields.into_iter().collect());
        } else if meta.path.is_ident("crate") {
            let lit: LitStr = meta.value()?.parse()?;
            krate = Some(lit.parse::<syn::Path>()?.into_token_stream());
        } else {
            let name = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            return Err(meta.error(format!(
                "unknown `#[collection]` key `{name}`{}; the keys are: name, pk, crate",
                crate::ctxt::did_you_mean(&name, ["name", "pk", "crate"])
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
        return None;
    }
    let Some(path) = path else {
        // A malformed `name` has been reported already.
        if !name_written {
            cx.error(attr, "add the collection's `name = \"...\"`");
        }
        return None;
    };
    let Some(pk) = pk else {
        cx.error(attr, "add the collection's partition key composites, as the members declare them: `pk(tenant_id: String)`");
        return None;
    };
    let mut members: Vec<Member> = Vec::new();
    for variant in &data.variants {
        let ty = match &variant.fields {
            syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => &fields.unnamed[0].ty,
            _ => {
                cx.error(
                    variant,
                    format!(
                        "variant `{}` holds one member entity: write it `{}(Entity)`",
                        variant.ident, variant.ident
                    ),
                );
                continue;
            }
        };
        let text = ty.to_token_stream().to_string();
        if let Some(earlier) = members
            .iter()
            .find(|m| m.ty.to_token_stream().to_string() == text)
        {
            cx.error(
                ty,
                format!(
                    "`{text}` is already the member `{}`: each entity appears once in a collection",
                    earlier.variant
                ),
            );
            continue;
        }
        members.push(Member {
            variant: &variant.ident,
            ty,
        });
    }
    if members.is_empty() && !cx.has_errors() {
        cx.error(
            &input.ident,
            "a collection needs at least one member entity",
        );
    }
    Some(Union {
        ident: &input.ident,
        vis: &input.vis,
        krate: krate.unwrap_or_else(crate::model::crate_path),
        path,
        pk,
        members,
    })
}

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

fn expand(union: &Union) -> TokenStream {
    let krate = &union.krate;
    let c = quote!(#krate::collection);
    let ident = union.ident;
    let vis = union.vis;
    let path = &union.path;
    let display = path.join(" > ");
    let pk_names: Vec<String> = union.pk.iter().map(|f| f.name.to_string()).collect();
    let pk_list = pk_names.join(", ");
    let pk_types: Vec<&Type> = union.pk.iter().map(|f| &f.ty).collect();
    let idx: Vec<Ident> = (0..union.members.len())
        .map(|i| format_ident!("__ENTITY_IDX_{}", i))
        .collect();
    let spec: Vec<Ident> = (0..union.members.len())
        .map(|i| format_ident!("__ENTITY_SPEC_{}", i))
        .collect();
    let agrees: Vec<Ident> = (0..union.members.len())
        .map(|i| format_ident!("__ENTITY_AGREES_{}", i))
        .collect();
    let mut checks = TokenStream::new();
    for (i, member) in union.members.iter().enumerate() {
        let (ty, idx_i, spec_i, agrees_i) = (member.ty, &idx[i], &spec[i], &agrees[i]);
        let name = ty.to_token_stream().to_string();
        let span = ty.span();
        let not_member = format!("`{name}` is not in collection `{display}`: add `collection = {}` to one of its indexes", collection_literal(path));
        let wrong_pk = format!("`{name}` composes the partition key of `{display}` from other fields than the collection's `pk({pk_list})`: give its collection index `pk({pk_list})`");
        let pk_idx = format_ident!("__ENTITY_PK_IDX_{}", i);
        checks.extend(quote_spanned! {span=>
            const #idx_i: usize = #c::find(<#ty as #krate::CollectionMember>::COLLECTIONS, __ENTITY_PATH);
            const #spec_i: &#c::CollectionSpec = #c::spec_at(<#ty as #krate::CollectionMember>::COLLECTIONS, #idx_i);
            const _: () = ::core::assert!(#idx_i != usize::MAX, #not_member);
            const _: () = ::core::assert!(#idx_i == usize::MAX || #c::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]), #wrong_pk);
            // The composite types are compared only when the names agree:
            // other names are reported above, once.
            const #pk_idx: usize = if #idx_i != usize::MAX && #c::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]) { #idx_i } else { usize::MAX };
            const _: fn() = || {
                fn same<A: #c::SameTypes<B>, B>() {}
                same::<<#ty as #c::CollectionPk<#pk_idx>>::Pk, (#(#pk_types,)*)>();
            };
        });
        // The layout (physical index, key attributes, clustered) is compared
        // with the first earlier member in the collection only, and stops at
        // the first difference: one mistake, one error.
        let mut agree = quote!(#idx_i != usize::MAX);
        for (j, other) in union.members.iter().enumerate().take(i) {
            let other_name = other.ty.to_token_stream().to_string();
            let (idx_j, spec_j) = (&idx[j], &spec[j]);
            let earlier = &idx[..j];
            let reference = quote!(#idx_j != usize::MAX #(&& #earlier == usize::MAX)*);
            let layout = [
                (quote!(#c::str_eq(#spec_i.index_name, #spec_j.index_name)), format!("`{name}` and `{other_name}` join `{display}` on different physical indexes: declare the collection on the same `gsi = \"...\"` in both")),
                (quote!(#c::str_eq(#spec_i.pk_attribute, #spec_j.pk_attribute)), format!("`{name}` and `{other_name}` join `{display}` with different partition key attributes: give both indexes the same `pk(attr = \"...\")`")),
                (quote!(#c::str_eq(#spec_i.sk_attribute, #spec_j.sk_attribute)), format!("`{name}` and `{other_name}` join `{display}` with different sort key attributes: give both indexes the same `sk(attr = \"...\")`")),
                (quote!(#spec_i.clustered == #spec_j.clustered), format!("`{name}` and `{other_name}` share an index of `{display}`, but one is clustered and one isolated: mark both `clustered` or neither")),
                // The partition key text: the query composes it from the first
                // member, so any difference (schema, versions, casing, attribute
                // names) would put a member in another partition.
                // (Reported only when both compose from the declared fields;
                // a field mismatch has its own error.)
                (quote!(!(#c::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]) && #c::strs_eq(#spec_j.pk_fields, &[#(#pk_names),*])) || #c::strs_eq(#spec_i.pk_texts, #spec_j.pk_texts)), format!("`{name}` and `{other_name}` compose the `{display}` partition key with different text (schema, schema version, casing or attribute names), so they would live in different partitions: give them the same `#[entity(schema, schema_version, casing, rename_all)]`")),
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
        for (j, other) in union.members.iter().enumerate().take(i) {
            let other_name = other.ty.to_token_stream().to_string();
            let (spec_j, agrees_j, other_ty) = (&spec[j], &agrees[j], other.ty);
            let clash = format_ident!("__ENTITY_CLASH_{}_{}", i, j);
            let same_name = quote!(#c::str_eq(<#ty as #krate::Entity>::MODEL.name, <#other_ty as #krate::Entity>::MODEL.name));
            let same_name_message = format!("`{name}` and `{other_name}` are stored under the same entity name, so their items cannot be told apart: give one `#[entity(name = \"...\")]`");
            let prefix_message = format!("the sort key prefix of `{name}` or `{other_name}` in `{display}` starts with the other's, so a query for one would return the other's items: rename one of the entities (`#[entity(name = \"...\")]`) or change its version");
            let first = quote!(#clash #(&& !#clashes)*);
            checks.extend(quote_spanned! {span=>
                const #clash: bool = #agrees_i && #agrees_j && (#same_name
                    || #c::str_starts_with(#spec_i.sk_prefix, #spec_j.sk_prefix)
                    || #c::str_starts_with(#spec_j.sk_prefix, #spec_i.sk_prefix));
                const _: () = ::core::assert!(!(#first && #same_name), #same_name_message);
                const _: () = ::core::assert!(!(#first && !#same_name), #prefix_message);
            });
            clashes.push(clash);
        }
    }

    let first = union.members.first().map(|m| m.ty);
    let variants: Vec<&Ident> = union.members.iter().map(|m| m.variant).collect();
    let types: Vec<&Type> = union.members.iter().map(|m| m.ty).collect();
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
                let spec = #c::spec_at(<#first as #krate::CollectionMember>::COLLECTIONS, #c::find(<#first as #krate::CollectionMember>::COLLECTIONS, &[#(#path),*]));
                let pk = #c::compose_pk(spec, &[#(#encoders),*]);
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
    let _ = Span::call_site();
    quote! {
        // The checks are spanned on the members, so lints would read them as
        // user code.
        #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
        const _: () = {
            const __ENTITY_PATH: &[&str] = &[#(#path),*];
            #checks
        };

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
