//! The lifecycle declarations: `MODEL.lifecycle`, the TTL field's item
//! conversion (always epoch seconds, `N`, whatever its Rust type), and the
//! field type checks.

use crate::attr::LifecycleRole;
use crate::model::lifecycle::Ttl;
use crate::model::Entity;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The `LifecycleModel` of `MODEL`.
pub fn model(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let lifecycle = quote!(#krate::lifecycle);
    let some = quote!(::core::option::Option::Some);
    let none = quote!(::core::option::Option::None);
    let option = |value: Option<TokenStream>| value.map_or(none.clone(), |v| quote!(#some(#v)));
    let seconds = |s: Option<(u64, proc_macro2::Span)>| option(s.map(|(s, _)| quote!(#s)));
    let ttl = option(entity.ttl().map(|ttl| {
        let field = &entity.fields[ttl.field];
        let (name, attribute) = (field.ident.to_string(), &field.attribute);
        let after = option(ttl.after.map(|s| quote!(#s)));
        quote!(#lifecycle::TtlModel { field: #name, attribute: #attribute, after: #after })
    }));
    let soft_delete = option(entity.soft_delete.as_ref().map(|soft| {
        let (attribute, ty) = match entity.deleted_at_field() {
            Some(f) => {
                let (attribute, ty) = (&entity.fields[f].attribute, entity.fields[f].ty);
                (quote!(#attribute), quote!(#ty))
            }
            None => (
                quote!(#lifecycle::DELETED_AT_ATTRIBUTE),
                quote!(#krate::EpochMillis),
            ),
        };
        let keep_unique = soft.keep_unique;
        let expire_after = seconds(soft.expire_after);
        quote!(#lifecycle::SoftDeleteModel {
            attribute: #attribute,
            at: <#ty as #krate::Timestamp>::attribute_at,
            keep_unique: #keep_unique,
            expire_after: #expire_after,
        })
    }));
    let history = option(entity.history.as_ref().map(|history| {
        let separator = &history.separator;
        let keep = option(history.keep.map(|(k, _)| quote!(#k)));
        let expire_after = seconds(history.expire_after);
        quote!(#lifecycle::HistoryModel {
            separator: #separator,
            keep: #keep,
            expire_after: #expire_after,
        })
    }));
    if entity.ttl().is_none() && entity.soft_delete.is_none() && entity.history.is_none() {
        return quote!(#lifecycle::LifecycleModel::NONE);
    }
    quote! {
        #lifecycle::LifecycleModel {
            ttl: #ttl,
            soft_delete: #soft_delete,
            history: #history,
        }
    }
}

/// The TTL role of field `f`. It wins over `serde` (refused by the checks),
/// so the fallback asks nothing of a TTL type that serde would.
pub fn ttl_field<'a>(entity: &Entity<'a>, f: usize) -> Option<Ttl<'a>> {
    entity.ttl_of(f)
}

/// Writes a TTL field as epoch seconds (`None`: no attribute).
pub fn put_ttl(entity: &Entity, ttl: &Ttl) -> TokenStream {
    let krate = &entity.krate;
    let field = &entity.fields[ttl.field];
    let (ident, attribute, ty) = (field.ident, &field.attribute, ttl.value_ty);
    let put = if ttl.optional {
        quote!(put_optional_ttl)
    } else {
        quote!(put_ttl)
    };
    quote_spanned! {ty.span()=>
        #krate::__private::#put::<#ty>(__entity_item, #attribute, &self.#ident);
    }
}

/// Reads a TTL field from epoch seconds.
pub fn read_ttl(entity: &Entity, ttl: &Ttl, slot: &syn::Ident) -> TokenStream {
    let krate = &entity.krate;
    let name = &entity.name;
    let field = &entity.fields[ttl.field];
    let (ident, attribute, ty) = (field.ident, &field.attribute, ttl.value_ty);
    let read = if ttl.optional {
        quote!(read_optional_ttl)
    } else {
        quote!(read_ttl)
    };
    quote_spanned!(ty.span()=> #ident: #krate::__private::#read::<#ty>(#slot, #name, #attribute)?)
}

/// The value type of a TTL field's handle (`Task::fields().expires_at`):
/// what the attribute holds, `EpochSeconds` (or an `Option` of it), so a
/// condition or an update compares and writes what DynamoDB's TTL reads.
pub fn handle_type(entity: &Entity, f: usize) -> Option<TokenStream> {
    let krate = &entity.krate;
    let ttl = ttl_field(entity, f)?;
    Some(if ttl.optional {
        quote!(::core::option::Option<#krate::EpochSeconds>)
    } else {
        quote!(#krate::EpochSeconds)
    })
}

/// The lifecycle fields the client writes, which an update never sets
/// (role `Managed`): a `ttl(after = ...)` field, written on every write,
/// and `deleted_at`, written by delete and restore (set by hand, it would
/// hide an item without dropping its index keys).
pub fn client_written(entity: &Entity) -> Vec<usize> {
    let sliding = entity.ttl().filter(|ttl| ttl.after.is_some());
    let deleted_at = entity
        .deleted_at_field()
        .filter(|_| entity.soft_delete.is_some());
    sliding
        .map(|ttl| ttl.field)
        .into_iter()
        .chain(deleted_at)
        .collect()
}

/// The traits lifecycle fields' types need, for the impls' bounds
/// (`super::key_bounds`): `TtlValue` for the TTL value, `Timestamp` for
/// `deleted_at`.
pub fn bounds<'e>(entity: &Entity<'e>) -> Vec<(&'e syn::Type, TokenStream)> {
    let krate = &entity.krate;
    let mut out = Vec::new();
    for (f, field) in entity.fields.iter().enumerate() {
        if let Some(ttl) = ttl_field(entity, f) {
            out.push((ttl.value_ty, quote!(#krate::TtlValue)));
        }
        let deleted_at = field
            .lifecycle
            .iter()
            .any(|(r, _)| *r == LifecycleRole::DeletedAt);
        if deleted_at && !field.serde {
            out.push((field.ty, quote!(#krate::Timestamp)));
        }
    }
    out
}

/// Whether field `f` is stored as a TTL (not through `ToAttribute`).
pub fn is_ttl_field(entity: &Entity, f: usize) -> bool {
    ttl_field(entity, f).is_some()
}

/// One assertion per lifecycle role, on the field's type: `TtlValue` on the
/// TTL value (`T` of `Option<T>`), `Timestamp` on `deleted_at`.
pub fn type_checks(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let mut checks = TokenStream::new();
    for (f, field) in entity.fields.iter().enumerate() {
        for (role, _) in &field.lifecycle {
            let (assert, ty) = match role {
                LifecycleRole::Ttl { .. } => match ttl_field(entity, f) {
                    Some(ttl) => (quote!(assert_ttl_value), ttl.value_ty),
                    None => continue,
                },
                LifecycleRole::DeletedAt => (quote!(assert_deleted_at), field.ty),
            };
            checks.extend(quote_spanned! {ty.span()=>
                #krate::__private::#assert::<#ty>();
            });
        }
    }
    checks
}
