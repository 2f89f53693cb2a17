//! Entity versions: the version check in `from_item`, the read of an older
//! version through `upgrade_from`, and the compile-time checks that the
//! type named there is this entity's previous version.

use crate::model::Entity;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The statement in `from_item` (after the identity check) that refuses an
/// item of another version, or reads an older one through `upgrade_from`.
pub fn version_check(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let private = quote!(#krate::__private);
    let stale = match &entity.upgrade_from {
        // Spanned on the type: a missing `impl From<TaskV1> for Task`, or a
        // type that is not an entity, is reported there.
        Some(previous) => quote_spanned! {previous.span()=>
            #private::upgrade::<#previous, Self>(__entity_item, __entity_stale)
        },
        None => quote!(::core::result::Result::Err(__entity_stale)),
    };
    quote! {
        if let ::core::result::Result::Err(__entity_stale) =
            #private::check_version(&__entity_item, <Self as #krate::Entity>::MODEL)
        {
            return #stale;
        }
    }
}

/// What `upgrade_from = P` must be: the same entity name, the same identity
/// and version attributes (the item is checked against both), and a lower
/// version. Each is a `const` assertion on the type.
pub fn checks(entity: &Entity) -> TokenStream {
    let Some(previous) = &entity.upgrade_from else {
        return TokenStream::new();
    };
    let krate = &entity.krate;
    let eq = quote!(#krate::__private::collection::str_eq);
    let ident = entity.ident;
    let (name, version) = (&entity.name, entity.version);
    let shown = quote!(#previous).to_string().replace(' ', "");
    let model = quote!(<#previous as #krate::Entity>::MODEL);
    let current = quote!(<#ident as #krate::Entity>::MODEL);
    let name_message = format!(
        "`upgrade_from = {shown}` names an entity stored under another name: `{ident}`'s items are `{name}`, so give `{shown}` `#[entity(name = \"{name}\")]`"
    );
    let version_message = format!(
        "`upgrade_from = {shown}` must name an older version of `{ident}`: give `{shown}` a `version` lower than {version}"
    );
    let attributes_message = format!(
        "`{shown}` records its entity name or version in other attributes than `{ident}`: give both the same `identity_attribute` and `version_attribute`"
    );
    quote_spanned! {previous.span()=>
        const _: () = ::core::assert!(#eq(#model.name, #name), #name_message);
        const _: () = ::core::assert!(!#eq(#model.name, #name) || #model.version < #version, #version_message);
        const _: () = ::core::assert!(
            !#eq(#model.name, #name)
                || (#eq(#model.identity_attribute, #current.identity_attribute)
                    && #eq(#model.version_attribute, #current.version_attribute)),
            #attributes_message
        );
    }
}
