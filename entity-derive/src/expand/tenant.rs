//! Multi-tenancy: `NotTenant` for an entity without a tenant; for one with
//! `#[entity(tenant = tenant_id)]`, `TenantEntity` (its tenant, and the
//! tenant each partition key value holds) and the tenant-free composers a
//! tenant client completes: `Product::tenant_key(..)` and one
//! `Product::tenant_<accessor>(..)` per index whose partition holds the
//! tenant.

use super::key_names;
use crate::model::{Entity, Field, Index, IndexKind, Key};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

pub fn expand(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let bounds = super::key_bounds(entity);
    let Some(tenant) = &entity.tenant else {
        return quote! {
            impl #krate::NotTenant for #ident #bounds {}
        };
    };
    let field = &entity.fields[tenant.field];
    let is_string = crate::model::type_name(field.ty).as_deref() == Some("String");
    let valid = is_string && holds(&entity.primary.pk, tenant.field);
    // An entity whose tenant was refused still gets the impl (with stub
    // bodies), so code using it reports nothing more.
    let (tenant_fn, key_tenant_fn) = if valid {
        let name = field.ident;
        (quote!(&self.#name), key_tenant_body(entity, tenant.field))
    } else {
        (
            quote!(::core::unimplemented!()),
            quote!(::core::unimplemented!()),
        )
    };
    let free = if valid {
        tenant_free_fns(entity, tenant.field)
    } else {
        TokenStream::new()
    };
    quote! {
        #[automatically_derived]
        impl #krate::TenantEntity for #ident #bounds {
            fn tenant(&self) -> &str {
                #tenant_fn
            }
            fn key_tenant(attribute: &str, value: &str) -> #krate::KeyTenant {
                #key_tenant_fn
            }
        }

        #[allow(clippy::too_many_arguments)]
        impl #ident #bounds {
            #free
        }
    }
}

/// The `EntityModel::tenant` value.
pub fn model(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    match &entity.tenant {
        Some(tenant) => {
            let field = &entity.fields[tenant.field];
            let name = field.ident.to_string();
            let name = name.trim_start_matches("r#");
            let attribute = &field.attribute;
            quote!(::core::option::Option::Some(#krate::TenantModel { field: #name, attribute: #attribute }))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn holds(key: &Key, field: usize) -> bool {
    key.composites.iter().any(|c| c.field == field)
}

/// Reads the tenant out of each partition key attribute that holds it (the
/// table's and each global index's) and out of the tenant field's own
/// attribute.
fn key_tenant_body(entity: &Entity, field: usize) -> TokenStream {
    let krate = &entity.krate;
    let mut seen: Vec<&str> = Vec::new();
    let mut arms = TokenStream::new();
    let indexes = std::iter::once(&entity.primary).chain(&entity.indexes);
    for index in indexes.filter(|i| i.kind != IndexKind::Local && i.multi_attribute.is_none()) {
        let key = &index.pk;
        let Some(position) = key.composites.iter().position(|c| c.field == field) else {
            continue;
        };
        if seen.contains(&key.attribute.as_str()) {
            continue;
        }
        seen.push(&key.attribute);
        let attribute = &key.attribute;
        let parse = key_names(index, "pk").parse;
        let position = syn::Index::from(position);
        arms.extend(quote! {
            if attribute == #attribute {
                return match Self::#parse(value) {
                    ::core::result::Result::Ok(__entity_parts) => #krate::KeyTenant::Tenant(__entity_parts.#position),
                    ::core::result::Result::Err(_) => #krate::KeyTenant::Unreadable,
                };
            }
        });
    }
    let own = &entity.fields[field].attribute;
    quote! {
        #arms
        if attribute == #own {
            return #krate::KeyTenant::Tenant(::std::borrow::ToOwned::to_owned(value));
        }
        #krate::KeyTenant::NotTenantKey
    }
}

/// `tenant_key(..)` and `tenant_<accessor>(..)`: the table key and each
/// accessor, taking every composite but the tenant, which a tenant client
/// fills in.
fn tenant_free_fns(entity: &Entity, field: usize) -> TokenStream {
    let krate = &entity.krate;
    let mut out = TokenStream::new();
    // `key`'s parameters: the partition key's composites, then the sort
    // key's that are not in the partition key.
    let mut key_fields: Vec<usize> = entity
        .primary
        .pk
        .composites
        .iter()
        .map(|c| c.field)
        .collect();
    for c in entity.primary.sk.iter().flat_map(|sk| &sk.composites) {
        if !key_fields.contains(&c.field) {
            key_fields.push(c.field);
        }
    }
    let (params, args) = params_and_args(entity, &key_fields, field);
    let doc = format!(
        "The table key of a `{}` without its tenant: a tenant client (`client.tenant(..)`) completes it with its own.",
        entity.name
    );
    out.extend(quote! {
        #[doc = #doc]
        pub fn tenant_key(#(#params),*) -> #krate::TenantKey<Self> {
            #krate::TenantKey::from_holes(Self::key(#(#args),*))
        }
    });
    let indexes = std::iter::once(&entity.primary).chain(&entity.indexes);
    for index in indexes.filter(|i| i.multi_attribute.is_none()) {
        out.extend(tenant_accessor(entity, index, field));
    }
    out
}

fn tenant_accessor(entity: &Entity, index: &Index, field: usize) -> TokenStream {
    if !holds(&index.pk, field) {
        return TokenStream::new();
    }
    let accessor = &index.name;
    let name = format_ident!("tenant_{}", accessor);
    let fields: Vec<usize> = index.pk.composites.iter().map(|c| c.field).collect();
    let (params, args) = params_and_args(entity, &fields, field);
    let stage = crate::model::names::stage_type_name(entity, index);
    let doc = format!(
        "[`{}::{accessor}`] without the tenant: a tenant client (`client.tenant(..)`) completes the query with its own.",
        entity.ident
    );
    quote! {
        #[doc = #doc]
        pub fn #name(#(#params),*) -> #stage<0> {
            Self::#accessor(#(#args),*)
        }
    }
}

/// The parameters of `fields` but the tenant, and the arguments passing
/// each of them with a hole for the tenant.
fn params_and_args(
    entity: &Entity,
    fields: &[usize],
    tenant: usize,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let krate = &entity.krate;
    let mut params = Vec::new();
    let mut args = Vec::new();
    for &f in fields {
        let Field { ident, key_ty, .. } = &entity.fields[f];
        if f == tenant {
            args.push(quote!(#krate::tenant::TenantHole));
        } else {
            params.push(quote!(#ident: impl #krate::KeyArg<#key_ty>));
            args.push(quote!(#ident));
        }
    }
    (params, args)
}
