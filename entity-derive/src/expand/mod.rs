//! Stage 3: code generation. Reads only the model; raises no user-facing
//! errors. One file per generated piece.

mod accessors;
mod collection;
mod fields;
mod item;
pub mod key_part;
mod keys;
mod lifecycle;
mod managed;
mod model;
mod multi_attribute;
mod stage_order;
mod tenant;
pub mod union;
mod upgrade;
pub mod value_casing;
mod view;

use crate::model::names::key_names;
use crate::model::{Entity, Field, Key};
use proc_macro2::TokenStream;
use quote::quote;

/// The code of a checked entity.
pub fn expand(entity: &Entity) -> TokenStream {
    let api = api(entity);
    let checks = keys::type_checks(entity);
    let native_checks = multi_attribute::type_checks(entity);
    let upgrade = upgrade::checks(entity);
    let value_casing = value_casing::checks(entity);
    let managed = managed::type_checks(entity);
    let lifecycle = lifecycle::type_checks(entity);
    quote! {
        #api
        const _: () = { #checks #native_checks #upgrade #value_casing #managed #lifecycle };
    }
}

/// The code of an entity whose derive reported errors: the same API from
/// the model as far as it was resolved (colliding items and refused
/// composites left out), so code using the type reports nothing more.
pub fn fallback(entity: &Entity) -> TokenStream {
    api(entity)
}

fn api(entity: &Entity) -> TokenStream {
    let (stages, accessors) = accessors::expand(entity);
    let (fields, field_fns) = fields::expand(entity);
    let lookups = managed::lookup_fns(entity);
    let inherent = keys::expand(entity, quote!(#accessors #field_fns #lookups));
    let item = item::expand(entity);
    let collections = collection::expand(entity);
    let model = model::expand(entity);
    let unique_values = managed::unique_values(entity);
    let markers = managed::markers(entity);
    let tenancy = tenant::expand(entity);
    let views = view::expand(entity);
    let krate = &entity.krate;
    let ident = entity.ident;
    let bounds = key_bounds(entity);
    quote! {
        // `CloneProbe`'s fallback, for `__DERIVED` (an anonymous import).
        use #krate::__private::NotClone as _;
        #inherent
        #stages
        #fields
        #collections
        #[automatically_derived]
        impl #krate::Entity for #ident #bounds {
            #model
            const __DERIVED: #krate::__private::Derived<Self> = #krate::__private::CloneProbe::<Self>::__ENTITY_DERIVED;
            #item
            #unique_values
        }
        #markers
        #tenancy
        #views
    }
}

/// `where for<'__entity> Ty: KeyPart, ...` for every composite type, and
/// `ToAttribute + FromAttribute` for every other stored field type, on every
/// impl that uses them. Each bound is checked once, on its field
/// (`keys::type_checks`): a type that does not fit fails there, with one
/// error, instead of at every generated use. (A bound under `for<..>` is
/// not a trivially false global bound to rustc, so the impls stay
/// well-formed and simply do not apply.)
pub fn key_bounds(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let mut seen: Vec<String> = Vec::new();
    let mut bounds = Vec::new();
    let composites = composite_field_set(entity);
    let natives = native_field_set(entity);
    for (f, field) in entity.fields.iter().enumerate() {
        // An optional composite's key text is its inner type's.
        let ty = if composites.contains(&f) {
            field.key_ty
        } else {
            field.ty
        };
        let bound = if composites.contains(&f) {
            quote!(#krate::KeyPart)
        } else if field.compression().is_some() {
            // Bounded whatever the type (a `u64` is no `Compressible`): the
            // one error is `keys::type_checks`'.
            let text = quote!(#ty: #krate::compress::Compressible).to_string();
            if !seen.contains(&text) {
                seen.push(text);
                bounds.push(quote!(for<'__entity> #ty: #krate::compress::Compressible));
            }
            continue;
        } else if natives.contains(&f) && !field.serde {
            quote!(#krate::ToAttribute + #krate::FromAttribute + #krate::NativeKey)
        } else if field.serde || lifecycle::is_ttl_field(entity, f) {
            continue; // a TTL field's bound is its value's `TtlValue`
        } else {
            quote!(#krate::ToAttribute + #krate::FromAttribute)
        };
        // `String`, `bool` and the integers are keys and attributes in the
        // runtime crate itself: a bound on them guards nothing.
        if !natives.contains(&f) && is_builtin_scalar(ty) {
            continue;
        }
        let text = quote!(#ty: #bound).to_string();
        if !seen.contains(&text) {
            seen.push(text);
            bounds.push(quote!(for<'__entity> #ty: #bound));
        }
    }
    for (ty, bound) in managed::bounds(entity)
        .into_iter()
        .chain(lifecycle::bounds(entity))
    {
        let text = quote!(#ty: #bound).to_string();
        if !seen.contains(&text) {
            seen.push(text);
            bounds.push(quote!(for<'__entity> #ty: #bound));
        }
    }
    if bounds.is_empty() {
        return TokenStream::new();
    }
    quote!(where #(#bounds),*)
}

/// A bare `String`, `bool` or integer type (no path, no generics), which
/// the runtime crate implements every conversion and key trait for.
pub(crate) fn is_builtin_scalar(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(ident) = path.path.get_ident() else {
        return false;
    };
    path.qself.is_none()
        && matches!(
            ident.to_string().as_str(),
            "String" | "bool" | "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32" | "i64"
        )
}

/// The fields that are a composite of some key.
pub fn composite_field_set(entity: &Entity) -> Vec<usize> {
    std::iter::once(&entity.primary)
        .chain(&entity.indexes)
        .flat_map(|index| index.keys().map(|(_, key)| key))
        .flat_map(|key| key.composites.iter().map(|c| c.field))
        .collect()
}

/// The fields that are an attribute of a multi-attribute key.
pub fn native_field_set(entity: &Entity) -> Vec<usize> {
    entity
        .indexes
        .iter()
        .filter_map(|index| index.multi_attribute.as_ref())
        .flat_map(|multi| multi.attributes().map(|(a, _)| a.field))
        .collect()
}

/// What stands in for a derive whose model could not be built (not a
/// struct with named fields, generic): the trait impls with no API.
pub fn minimal_fallback(input: &syn::DeriveInput) -> TokenStream {
    if !matches!(input.data, syn::Data::Struct(_)) || !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let krate = crate::model::crate_path_for_key_part(&input.attrs);
    minimal_impls(input, &krate)
}

fn minimal_impls(input: &syn::DeriveInput, krate: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    quote! {
        #[automatically_derived]
        impl #krate::Entity for #ident {
            const MODEL: &'static #krate::EntityModel = &#krate::EntityModel {
                name: "",
                version: 0,
                schema: "",
                schema_version: 0,
                table: ::core::option::Option::None,
                identity_attribute: "",
                version_attribute: "",
                version_type: #krate::VersionType::Number,
                primary: #krate::IndexModel {
                    name: "primary",
                    index_name: ::core::option::Option::None,
                    kind: #krate::IndexKind::Primary,
                    pk: #krate::KeyModel { attribute: "", composites: &[], template: "", number: false, shards: ::core::option::Option::None },
                    sk: ::core::option::Option::None,
                    multi_attribute: &[],
                    projection: #krate::IndexProjection::All,
                },
                indexes: &[],
                fields: &[],
                managed: #krate::managed::ManagedModel::NONE,
                lifecycle: #krate::lifecycle::LifecycleModel::NONE,
                tenant: ::core::option::Option::None,
            };
            fn write_item(&self, _: &mut #krate::ItemWriter) -> ::core::result::Result<(), #krate::EncodeError> {
                ::core::unimplemented!()
            }
            fn from_item(_: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
                ::core::unimplemented!()
            }
            fn primary_key(&self) -> #krate::PrimaryKey<Self> {
                ::core::unimplemented!()
            }
            fn key_fields(_: &#krate::PrimaryKey<Self>) -> #krate::Item {
                ::core::unimplemented!()
            }
        }

        #[automatically_derived]
        impl #krate::CollectionMember for #ident {
            const COLLECTIONS: &'static [#krate::collection::CollectionSpec] = &[];
        }

        #[automatically_derived]
        impl #krate::WithoutUnique for #ident {}

        #[automatically_derived]
        impl #krate::WithoutVersion for #ident {}

        #[automatically_derived]
        impl #krate::WithoutSoftDelete for #ident {}

        #[automatically_derived]
        impl #krate::NotTenant for #ident {}

        #[automatically_derived]
        impl #krate::collection::CollectionPk<{ usize::MAX }> for #ident {
            type Pk = #krate::collection::NotAMember;
        }
    }
}

/// `field: impl KeyArg<Ty>` for each composite.
fn key_params(entity: &Entity, key: &Key) -> Vec<TokenStream> {
    let krate = &entity.krate;
    key.composites
        .iter()
        .map(|c| {
            let Field { ident, key_ty, .. } = &entity.fields[c.field];
            quote!(#ident: impl #krate::KeyArg<#key_ty>)
        })
        .collect()
}

fn composite_fields<'e>(entity: &'e Entity, key: &Key) -> Vec<&'e Field<'e>> {
    key.composites
        .iter()
        .map(|c| &entity.fields[c.field])
        .collect()
}
