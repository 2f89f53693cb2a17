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
    let checks = Checks::new(union, members);
    let mut out = TokenStream::new();
    for i in 0..members.len() {
        out.extend(checks.membership(i));
        out.extend(checks.layout(i));
        out.extend(checks.clashes(i));
    }
    out
}

/// What the checks of every member share: the runtime paths, the declared
/// partition key, and the names of the per-member constants.
struct Checks<'u> {
    union: &'u Union<'u>,
    members: &'u [(&'u Ident, &'u Type)],
    krate: &'u TokenStream,
    c: TokenStream,
    h: TokenStream,
    display: String,
    pk_names: Vec<String>,
    pk_list: String,
    idx: Vec<Ident>,
    spec: Vec<Ident>,
    agrees: Vec<Ident>,
}

impl<'u> Checks<'u> {
    fn new(union: &'u Union<'u>, members: &'u [(&'u Ident, &'u Type)]) -> Self {
        let krate = &union.krate;
        let pk_names: Vec<String> = union.pk.iter().map(|f| f.name.to_string()).collect();
        let names = |prefix: &str| -> Vec<Ident> {
            (0..members.len())
                .map(|i| format_ident!("{}{}", prefix, i))
                .collect()
        };
        Checks {
            union,
            members,
            krate,
            c: quote!(#krate::collection),
            h: quote!(#krate::__private::collection),
            display: union.path.join(" > "),
            pk_list: pk_names.join(", "),
            pk_names,
            idx: names("__ENTITY_IDX_"),
            spec: names("__ENTITY_SPEC_"),
            agrees: names("__ENTITY_AGREES_"),
        }
    }

    /// Member `i`'s type and its name as written, for messages.
    fn member(&self, i: usize) -> (&'u Type, String) {
        let ty = self.members[i].1;
        (ty, ty.to_token_stream().to_string())
    }

    /// Member `i` is in the collection, with the declared partition key
    /// fields and their types.
    fn membership(&self, i: usize) -> TokenStream {
        let Checks {
            krate,
            c,
            h,
            display,
            pk_names,
            pk_list,
            ..
        } = self;
        let (ty, name) = self.member(i);
        let (idx_i, spec_i) = (&self.idx[i], &self.spec[i]);
        let pk_types: Vec<&Type> = self.union.pk.iter().map(|f| &f.ty).collect();
        let not_member = format!("`{name}` is not in collection `{display}`: add `collection = {}` to one of its indexes", collection_literal(&self.union.path));
        let wrong_pk = format!("`{name}` composes the partition key of `{display}` from other fields than the collection's `pk({pk_list})`: give its collection index `pk({pk_list})`");
        let pk_idx = format_ident!("__ENTITY_PK_IDX_{}", i);
        quote_spanned! {ty.span()=>
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
        }
    }

    /// The layout (physical index, key attributes, clustered) is compared
    /// with the first earlier member in the collection only, and stops at
    /// the first difference: one mistake, one error. Ends with member `i`'s
    /// `__ENTITY_AGREES_i`.
    fn layout(&self, i: usize) -> TokenStream {
        let span = self.member(i).0.span();
        let (idx_i, agrees_i) = (&self.idx[i], &self.agrees[i]);
        let mut checks = TokenStream::new();
        let mut agree = quote!(#idx_i != usize::MAX);
        for j in 0..i {
            let (idx_j, earlier) = (&self.idx[j], &self.idx[..j]);
            let reference = quote!(#idx_j != usize::MAX #(&& #earlier == usize::MAX)*);
            let mut prior = quote!(#idx_i != usize::MAX && #reference);
            for (condition, message) in self.layout_rules(i, j) {
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
        checks
    }

    /// What members `i` and `j` must share, in the order checked, each with
    /// its message.
    fn layout_rules(&self, i: usize, j: usize) -> [(TokenStream, String); 8] {
        let Checks {
            krate,
            h,
            display,
            pk_names,
            ..
        } = self;
        let ((ty, name), (other_ty, other_name)) = (self.member(i), self.member(j));
        let (spec_i, spec_j) = (&self.spec[i], &self.spec[j]);
        let pk_fields_agree = quote!(#h::strs_eq(#spec_i.pk_fields, &[#(#pk_names),*]) && #h::strs_eq(#spec_j.pk_fields, &[#(#pk_names),*]));
        let pk_texts_agree =
            quote!(!(#pk_fields_agree) || #h::strs_eq(#spec_i.pk_texts, #spec_j.pk_texts));
        let custom_format = quote!((#spec_i.custom_format || #spec_j.custom_format));
        [
            (quote!(#spec_i.index_name.is_some() == #spec_j.index_name.is_some()), format!("`{name}` and `{other_name}` join `{display}` in different places, one on the table's keys and one on an index: declare the collection on the same index in both (`#[entity(collection = \"...\")]` for the table's keys)")),
            (quote!(#h::opt_str_eq(#spec_i.index_name, #spec_j.index_name)), format!("`{name}` and `{other_name}` join `{display}` on different physical indexes: declare the collection on the same `gsi = \"...\"` in both")),
            (quote!(#h::str_eq(#spec_i.pk_attribute, #spec_j.pk_attribute)), format!("`{name}` and `{other_name}` join `{display}` with different partition key attributes: give both indexes the same `pk(attr = \"...\")`")),
            (quote!(#h::str_eq(#spec_i.sk_attribute, #spec_j.sk_attribute)), format!("`{name}` and `{other_name}` join `{display}` with different sort key attributes: give both indexes the same `sk(attr = \"...\")`")),
            // The query tells members apart by the first member's identity
            // attribute.
            (quote!(#h::str_eq(<#ty as #krate::Entity>::MODEL.identity_attribute, <#other_ty as #krate::Entity>::MODEL.identity_attribute)), format!("`{name}` and `{other_name}` record their entity name in different attributes, so `{display}` cannot tell their items apart: give both the same `#[entity(identity_attribute = \"...\")]`")),
            (quote!(#spec_i.clustered == #spec_j.clustered), format!("`{name}` and `{other_name}` share an index of `{display}`, but one is clustered and one isolated: mark both `clustered` or neither")),
            // The partition key text: the query composes it from the first
            // member, so any difference (schema, versions, casing, attribute
            // names) would put a member in another partition.
            // (Reported only when both compose from the declared fields;
            // a field mismatch has its own error.)
            (quote!(#custom_format || #pk_texts_agree), format!("`{name}` and `{other_name}` compose the `{display}` partition key with different text (schema, schema version, casing or attribute names), so they would live in different partitions: give them the same `#[entity(schema, schema_version, casing, rename_all)]`")),
            // With a custom format, the text is the format's.
            (pk_texts_agree, format!("`{name}` and `{other_name}` compose the `{display}` partition key with different text, so they would live in different partitions: give both partition keys the same `format = \"...\"` (the same text around the same fields)")),
        ]
    }

    /// Names and sort key prefixes are compared with every earlier member
    /// that agrees on the layout; each member reports its first clash.
    fn clashes(&self, i: usize) -> TokenStream {
        let mut checks = TokenStream::new();
        let mut clashes = Vec::new();
        for j in 0..i {
            let clash = format_ident!("__ENTITY_CLASH_{}_{}", i, j);
            checks.extend(self.clash(i, j, &clash, &clashes));
            clashes.push(clash);
        }
        checks
    }

    /// Whether members `i` and `j` clash, reported unless an earlier clash
    /// of member `i` was.
    fn clash(&self, i: usize, j: usize, clash: &Ident, earlier: &[Ident]) -> TokenStream {
        let Checks {
            krate, h, display, ..
        } = self;
        let ((ty, name), (other_ty, other_name)) = (self.member(i), self.member(j));
        let (spec_i, agrees_i) = (&self.spec[i], &self.agrees[i]);
        let (spec_j, agrees_j) = (&self.spec[j], &self.agrees[j]);
        let same_name = quote!(#h::str_eq(<#ty as #krate::Entity>::MODEL.name, <#other_ty as #krate::Entity>::MODEL.name));
        let same_name_message = format!("`{name}` and `{other_name}` are stored under the same entity name, so their items cannot be told apart: give one `#[entity(name = \"...\")]`");
        let prefix_message = format!("the sort key prefix of `{name}` or `{other_name}` in `{display}` starts with the other's, so a query for one would return the other's items: rename one of the entities (`#[entity(name = \"...\")]`) or change its version");
        let format_message = format!("the sort key prefix of `{name}` or `{other_name}` in `{display}` (its format's text before the first field) starts with the other's, so a query for one would return the other's items: change one of the sort key formats so neither starts with the other");
        let custom_format = quote!((#spec_i.custom_format || #spec_j.custom_format));
        let first = quote!(#clash #(&& !#earlier)*);
        quote_spanned! {ty.span()=>
            const #clash: bool = #agrees_i && #agrees_j && (#same_name
                || #h::str_starts_with(#spec_i.sk_prefix, #spec_j.sk_prefix)
                || #h::str_starts_with(#spec_j.sk_prefix, #spec_i.sk_prefix));
            const _: () = ::core::assert!(!(#first && #same_name), #same_name_message);
            const _: () = ::core::assert!(!(#first && !#same_name && !#custom_format), #prefix_message);
            const _: () = ::core::assert!(!(#first && !#same_name && #custom_format), #format_message);
        }
    }
}

/// The query accessor, the grouped results and the trait impls.
fn api(union: &Union, members: &[(&Ident, &Type)]) -> TokenStream {
    let ident = union.ident;
    let grouped = format_ident!("{}Items", ident);
    let grouped_struct = grouped_struct(union, members, &grouped);
    let query = members
        .first()
        .map(|m| query_fn(union, m.1))
        .unwrap_or_default();
    let readable = readable_impl(union, members);
    let collection = collection_impl(union, members, &grouped);
    quote! {
        #grouped_struct

        impl #ident {
            #query
        }

        #readable

        #collection
    }
}

/// `TeamItems`: the results of a query, one `Vec` per member.
fn grouped_struct(union: &Union, members: &[(&Ident, &Type)], grouped: &Ident) -> TokenStream {
    let vis = union.vis;
    let types = members.iter().map(|m| m.1);
    let groups = group_names(members);
    let doc_grouped = format!(
        "The results of a `{}` query, one `Vec` per member.",
        union.ident
    );
    quote! {
        #[doc = #doc_grouped]
        #[derive(Default)]
        #vis struct #grouped {
            #(
                #[doc = concat!("The `", stringify!(#types), "` items.")]
                pub #groups: ::std::vec::Vec<#types>,
            )*
        }
    }
}

/// The fields of the grouped results: each variant's name in snake case.
fn group_names(members: &[(&Ident, &Type)]) -> Vec<Ident> {
    members
        .iter()
        .map(|m| format_ident!("{}", snake(&m.0.to_string())))
        .collect()
}

/// `Team::query(..)`: the partition of the collection, composed the way the
/// first member composes it.
fn query_fn(union: &Union, first: &Type) -> TokenStream {
    let krate = &union.krate;
    let h = quote!(#krate::__private::collection);
    let path = &union.path;
    let params = union.pk.iter().map(|f| {
        let (name, ty) = (&f.name, &f.ty);
        quote!(#name: impl #krate::KeyArg<#ty>)
    });
    let encoders = union.pk.iter().map(|f| {
        let (name, ty) = (&f.name, &f.ty);
        quote!(&|out: &mut ::std::string::String| #krate::KeyArg::<#ty>::encode_arg(&#name, out))
    });
    let depth = path.len();
    let pk_list = union
        .pk
        .iter()
        .map(|f| f.name.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let doc_query = format!(
        "Queries collection `{}`: every member's items in the partition of `{pk_list}`.",
        path.join(" > ")
    );
    quote! {
        #[doc = #doc_query]
        pub fn query(#(#params),*) -> #krate::Query<Self> {
            let spec = #h::spec_at(<#first as #krate::CollectionMember>::COLLECTIONS, #h::find(<#first as #krate::CollectionMember>::COLLECTIONS, &[#(#path),*]));
            let pk = #h::compose_pk(spec, &[#(#encoders),*]);
            let query = #krate::Query::new(spec.index_name, spec.pk_attribute, pk);
            match spec.collection_prefixes.get(#depth - 1) {
                // Clustered: the collection's own sort key prefix, closed
                // by the separator so `tenantmembers` never matches
                // `tenantmembersx`.
                ::core::option::Option::Some(prefix) if spec.clustered => query.with_sort(
                    spec.sk_attribute,
                    #krate::SortCondition::BeginsWith(::std::format!("{}{}", prefix, #krate::key::SEPARATOR)),
                ),
                _ => query,
            }
        }
    }
}

/// `Readable`, so the client reads the union like an entity. The members
/// share the collection's physical index, so any of them knows its kind.
fn readable_impl(union: &Union, members: &[(&Ident, &Type)]) -> TokenStream {
    let krate = &union.krate;
    let ident = union.ident;
    let display = union.path.join(" > ");
    let types: Vec<&syn::Type> = members.iter().map(|m| m.1).collect();
    let read_strict = read_strict(union, members);
    quote! {
        // A union of tenant entities would read every tenant's items: the
        // plain client queries it only when no member has a tenant.
        #[automatically_derived]
        impl #krate::NotTenant for #ident where #(for<'__entity> #types: #krate::NotTenant),* {}

        // A union of tenant entities is queried through a tenant client,
        // whose request check reads keys with every member's reader.
        #[automatically_derived]
        impl #krate::TenantReadable for #ident where #(for<'__entity> #types: #krate::TenantEntity),* {
            fn tenant_readers() -> ::std::vec::Vec<(&'static #krate::EntityModel, #krate::KeyTenantReader)> {
                ::std::vec![#((<#types as #krate::Entity>::MODEL, <#types as #krate::TenantEntity>::key_tenant as #krate::KeyTenantReader)),*]
            }
        }

        #[automatically_derived]
        impl #krate::Readable for #ident {
            const TYPE_NAME: &'static str = #display;
            type Scoped = Self;

            fn identity_filter() -> ::core::option::Option<(&'static str, &'static str)> {
                ::core::option::Option::None
            }

            fn read(item: #krate::Item) -> ::core::result::Result<::core::option::Option<Self>, #krate::DecodeError> {
                <Self as #krate::Collection>::decode(item)
            }

            fn read_strict(item: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
                #read_strict
            }

            fn key_attributes() -> ::std::vec::Vec<&'static str> {
                <Self as #krate::Collection>::key_attributes()
            }

            fn index_kind(index_name: &str) -> ::core::option::Option<#krate::IndexKind> {
                ::core::option::Option::None
                    #(.or_else(|| <#types as #krate::Readable>::index_kind(index_name)))*
            }

            fn lifecycles() -> ::std::vec::Vec<&'static #krate::lifecycle::LifecycleModel> {
                let mut __entity_lifecycles = ::std::vec::Vec::new();
                #(__entity_lifecycles.extend(<#types as #krate::Readable>::lifecycles());)*
                __entity_lifecycles
            }
        }
    }
}

/// `Collection`: decoding into the enum, grouping, and the key attributes
/// of every member.
fn collection_impl(union: &Union, members: &[(&Ident, &Type)], grouped: &Ident) -> TokenStream {
    let krate = &union.krate;
    let ident = union.ident;
    let path = &union.path;
    let variants = members.iter().map(|m| m.0);
    let types: Vec<&Type> = members.iter().map(|m| m.1).collect();
    let groups = group_names(members);
    let decode = decode_fn(union, members);
    quote! {
        #[automatically_derived]
        impl #krate::Collection for #ident {
            const PATH: &'static [&'static str] = &[#(#path),*];
            type Grouped = #grouped;

            #decode

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

/// `Collection::decode`: the member named by the item's identity attribute.
fn decode_fn(union: &Union, members: &[(&Ident, &Type)]) -> TokenStream {
    let krate = &union.krate;
    let first = members.first().map(|m| m.1);
    let variants = members.iter().map(|m| m.0);
    let types: Vec<&Type> = members.iter().map(|m| m.1).collect();
    quote! {
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
                    return #krate::__private::skip_foreign(<#types as #krate::Entity>::from_item(item).map(Self::#variants));
                }
                __entity_position += 1;
            )*
            let _ = __entity_position;
            ::core::result::Result::Ok(::core::option::Option::None)
        }
    }
}

/// `Readable::read_strict`: like `decode`, but an item that is not a
/// member's, or a member's item of a version it does not read, is an error.
fn read_strict(union: &Union, members: &[(&Ident, &Type)]) -> TokenStream {
    let krate = &union.krate;
    let display = union.path.join(" > ");
    let Some(first) = members.first().map(|m| m.1) else {
        return quote!(::core::unreachable!());
    };
    let variants = members.iter().map(|m| m.0);
    let types = members.iter().map(|m| m.1);
    quote! {
        let attribute = <#first as #krate::Entity>::MODEL.identity_attribute;
        let found = match item.get(attribute) {
            ::core::option::Option::Some(#krate::__private::AttributeValue::S(name)) => ::core::option::Option::Some(name.as_str()),
            _ => ::core::option::Option::None,
        };
        #(
            if found == ::core::option::Option::Some(<#types as #krate::Entity>::MODEL.name) {
                return <#types as #krate::Entity>::from_item(item).map(Self::#variants);
            }
        )*
        ::core::result::Result::Err(#krate::DecodeError::WrongEntity {
            expected: #display,
            attribute,
            found: found.map(::std::borrow::ToOwned::to_owned),
        })
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
