//! Managed fields and unique constraints: `MODEL.managed`, the unique
//! lookups (`Customer::by_email(..)`) and `Entity::unique_values`, the
//! `WithoutUnique`/`WithoutVersion`/`WithoutSoftDelete` markers, and the field type checks.
//!
//! A constraint's value is composed in one place, its lookup;
//! `unique_values` calls the lookups, so a sentinel written on `put` and the
//! one a lookup reads hold the same text.

use crate::attr::{IdKind, ManagedRole};
use crate::model::managed::Unique;
use crate::model::names::unique_lookup_name;
use crate::model::Entity;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The `ManagedModel` of `MODEL`.
pub fn model(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let none = quote!(::core::option::Option::None);
    let timestamp = |role: ManagedRole| match entity.managed_field(|r| r == role) {
        Some(f) => {
            let field = &entity.fields[f];
            let (name, attribute, ty) = (field.ident.to_string(), &field.attribute, field.ty);
            quote!(::core::option::Option::Some(#krate::managed::TimestampModel {
                field: #name,
                attribute: #attribute,
                at: <#ty as #krate::Timestamp>::attribute_at,
            }))
        }
        None => none.clone(),
    };
    let created_at = timestamp(ManagedRole::CreatedAt);
    let updated_at = timestamp(ManagedRole::UpdatedAt);
    let version = match entity.managed_field(|r| r == ManagedRole::Version) {
        Some(f) => {
            let attribute = &entity.fields[f].attribute;
            quote!(::core::option::Option::Some(#attribute))
        }
        None => none,
    };
    let generated = generated(entity);
    if entity.fields.iter().all(|f| f.managed.is_empty()) && entity.unique.is_empty() {
        return quote!(#krate::managed::ManagedModel::NONE);
    }
    let unique = entity.unique.iter().map(|u| {
        let name = &u.name;
        let fields = u
            .fields
            .iter()
            .map(|f| entity.fields[f.field].ident.to_string());
        let attributes = u.fields.iter().map(|f| &entity.fields[f.field].attribute);
        let case_insensitive = u.case_insensitive;
        quote!(#krate::managed::UniqueModel {
            name: #name,
            fields: &[#(#fields),*],
            attributes: &[#(#attributes),*],
            case_insensitive: #case_insensitive,
        })
    });
    quote! {
        #krate::managed::ManagedModel {
            created_at: #created_at,
            updated_at: #updated_at,
            version: #version,
            generated: &[#(#generated),*],
            unique: &[#(#unique),*],
        }
    }
}

fn generated(entity: &Entity) -> Vec<TokenStream> {
    let krate = &entity.krate;
    let mut out = Vec::new();
    for field in &entity.fields {
        for (role, _) in &field.managed {
            let ManagedRole::Generate(kind) = role else {
                continue;
            };
            let kind = match kind {
                IdKind::Ulid => quote!(Ulid),
                IdKind::Uuid => quote!(Uuid),
            };
            let (name, attribute) = (field.ident.to_string(), &field.attribute);
            out.push(quote!(#krate::managed::GeneratedModel {
                field: #name,
                attribute: #attribute,
                kind: #krate::managed::IdKind::#kind,
            }));
        }
    }
    out
}

/// The lookups that are generated, with their positions. The fallback
/// leaves out a colliding one, and one that could not compile (a field
/// named twice, or a serde field): those have been reported.
fn lookups<'e>(entity: &'e Entity) -> impl Iterator<Item = (usize, &'e Unique<'e>)> {
    entity.unique.iter().enumerate().filter(|(i, u)| {
        let refused = u.fields.iter().enumerate().any(|(k, f)| {
            entity.fields[f.field].serde || u.fields[..k].iter().any(|e| e.field == f.field)
        });
        !refused && !entity.omit_unique.contains(i) && unique_lookup_name(u).is_some()
    })
}

/// `Customer::by_email(..)`, one per constraint: the only composer of a
/// constraint's value.
pub fn lookup_fns(entity: &Entity) -> TokenStream {
    lookups(entity)
        .map(|(i, u)| lookup_fn(entity, i, u))
        .collect()
}

fn lookup_fn(entity: &Entity, position: usize, unique: &Unique) -> TokenStream {
    let krate = &entity.krate;
    let lookup = unique_lookup_name(unique).expect("filtered by `lookups`");
    let value = quote!(#krate::__private::UniqueValue);
    let params = unique.fields.iter().map(|f| {
        let (name, ty) = (entity.fields[f.field].ident, f.value_ty);
        quote!(#name: impl #krate::KeyArg<#ty>)
    });
    let parts = unique.fields.iter().map(|f| {
        let (name, ty) = (entity.fields[f.field].ident, f.value_ty);
        let step = if unique.case_insensitive && f.folds() {
            quote!(folded)
        } else {
            quote!(part)
        };
        quote!(let __entity_value = #value::#step::<#ty>(__entity_value, &#name);)
    });
    let doc = lookup_doc(entity, unique);
    // A tenant entity's value starts with its tenant: a hole here, filled
    // by the tenant client (or `UniqueKey::for_tenant`), and by
    // `unique_values` with the entity's own.
    let tenant = entity.tenant.as_ref().map(|_| {
        quote!(let __entity_value = #value::part::<::std::string::String>(__entity_value, &#krate::tenant::TenantHole);)
    });
    quote! {
        #[doc = #doc]
        pub fn #lookup(#(#params),*) -> #krate::UniqueKey<Self> {
            let __entity_value = #value::start();
            #tenant
            #(#parts)*
            #krate::UniqueKey::new(#position, #value::finish(__entity_value))
        }
    }
}

fn lookup_doc(entity: &Entity, unique: &Unique) -> String {
    let fields: Vec<String> = unique
        .fields
        .iter()
        .map(|f| format!("`{}`", crate::model::names::field_name(entity, f.field)))
        .collect();
    let folded = if unique.case_insensitive {
        " (strings compared case-insensitively)"
    } else {
        ""
    };
    let reader = match entity.tenant {
        Some(_) => " within a tenant: `client.tenant(..).get_unique(..)` completes it with the tenant and reads the item it names",
        None => ". `client.get_unique(..)` reads the item it names",
    };
    format!(
        "The lookup of the `{}` whose {} hold these values{folded}: unique constraint `{}`{reader}.",
        entity.name,
        fields.join(", "),
        unique.name
    )
}

/// `Entity::unique_values`: each constraint's value through its lookup, or
/// `None` when an optional field of it is `None`. Left to the trait's
/// default when there is no constraint (or a lookup is missing).
pub fn unique_values(entity: &Entity) -> TokenStream {
    if entity.unique.is_empty() || lookups(entity).count() < entity.unique.len() {
        return TokenStream::new();
    }
    let krate = &entity.krate;
    let some = quote!(::core::option::Option::Some);
    let values = entity.unique.iter().map(|u| {
        let lookup = unique_lookup_name(u).expect("every lookup was generated");
        let args = u.fields.iter().map(|f| {
            let name = entity.fields[f.field].ident;
            if f.optional {
                quote!(#name)
            } else {
                quote!(&self.#name)
            }
        });
        let lookup = quote!(Self::#lookup(#(#args),*));
        let call = match entity.tenant {
            Some(_) => quote!(#some(#krate::tenant::fill_tenant(#lookup.value(), <Self as #krate::TenantEntity>::tenant(self)))),
            None => quote!(#some(::std::string::String::from(#lookup.value()))),
        };
        let optional: Vec<&syn::Ident> = u
            .fields
            .iter()
            .filter(|f| f.optional)
            .map(|f| entity.fields[f.field].ident)
            .collect();
        if optional.is_empty() {
            return call;
        }
        quote! {
            match (#(::core::option::Option::as_ref(&self.#optional),)*) {
                (#(#some(#optional),)*) => #call,
                _ => ::core::option::Option::None,
            }
        }
    });
    quote! {
        fn unique_values(&self) -> ::std::vec::Vec<::core::option::Option<::std::string::String>> {
            ::std::vec![#(#values),*]
        }
    }
}

/// `WithoutUnique`, `WithoutVersion` and `WithoutSoftDelete`, for an entity
/// without constraints, without a version or without soft delete: what batches and blind transaction writes take.
pub fn markers(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let bounds = super::key_bounds(entity);
    let mut out = TokenStream::new();
    if entity.unique.is_empty() {
        out.extend(quote! {
            impl #krate::WithoutUnique for #ident #bounds {}
        });
    }
    if entity
        .managed_field(|r| r == ManagedRole::Version)
        .is_none()
    {
        out.extend(quote! {
            impl #krate::WithoutVersion for #ident #bounds {}
        });
    }
    if entity.soft_delete.is_none() {
        out.extend(quote! {
            impl #krate::WithoutSoftDelete for #ident #bounds {}
        });
    }
    out
}

/// The traits managed fields' types need, for the impls' bounds
/// (`super::key_bounds`): `Timestamp`, `LockVersion`, `GeneratedId`, and
/// `KeyPart` for the values of unique constraints' fields.
pub fn bounds<'e>(entity: &Entity<'e>) -> Vec<(&'e syn::Type, TokenStream)> {
    let krate = &entity.krate;
    let mut out = Vec::new();
    for field in entity.fields.iter().filter(|f| !f.serde) {
        for (role, _) in &field.managed {
            out.push((field.ty, role_trait(krate, *role)));
        }
    }
    for unique in &entity.unique {
        for f in &unique.fields {
            if !entity.fields[f.field].serde {
                out.push((f.value_ty, quote!(#krate::KeyPart)));
            }
        }
    }
    out
}

fn role_trait(krate: &TokenStream, role: ManagedRole) -> TokenStream {
    match role {
        ManagedRole::CreatedAt | ManagedRole::UpdatedAt => quote!(#krate::Timestamp),
        ManagedRole::Version => quote!(#krate::LockVersion),
        ManagedRole::Generate(_) => quote!(#krate::GeneratedId),
    }
}

/// One assertion per managed role, on the field's type, and one per unique
/// field that is no key composite (those are checked as composites), on
/// its name in `unique(...)`.
pub fn type_checks(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let mut checks = TokenStream::new();
    for field in &entity.fields {
        for (role, _) in &field.managed {
            let ty = field.ty;
            let assert = match role {
                ManagedRole::CreatedAt | ManagedRole::UpdatedAt => quote!(assert_timestamp),
                ManagedRole::Version => quote!(assert_lock_version),
                ManagedRole::Generate(_) => quote!(assert_generated_id),
            };
            checks.extend(quote_spanned! {ty.span()=>
                #krate::__private::#assert::<#ty>();
            });
        }
    }
    let mut checked = super::composite_field_set(entity);
    for unique in &entity.unique {
        for f in &unique.fields {
            if !checked.contains(&f.field) {
                checked.push(f.field);
                checks.extend(super::keys::key_part_check(entity, f.value_ty, f.token));
            }
        }
    }
    checks
}
