//! `Entity::MODEL`: the static description the client reads.

use crate::model::projection::{Projection, ProjectionDecl};
use crate::model::{Entity, Index, IndexKind, Key};
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let name = &entity.name;
    let version = entity.version;
    let schema = &entity.schema;
    let schema_version = entity.schema_version;
    let table = match &entity.table {
        Some(table) => quote!(::core::option::Option::Some(#table)),
        None => quote!(::core::option::Option::None),
    };
    let identity_attribute = match &entity.identity_attribute {
        Some(attribute) => quote!(#attribute),
        None => quote!(#krate::__private::IDENTITY_ATTRIBUTE),
    };
    let version_attribute = match &entity.version_attribute {
        Some(attribute) => quote!(#attribute),
        None => quote!(#krate::__private::VERSION_ATTRIBUTE),
    };
    let version_type = if entity.version_is_string {
        quote!(String)
    } else {
        quote!(Number)
    };
    let primary = index(entity, &entity.primary);
    let indexes = entity.indexes.iter().map(|i| index(entity, i));
    // Fields stored under their own names, unencrypted and unsigned (the
    // usual case), as one list of names.
    let plain = entity.fields.iter().all(|f| {
        f.encrypt.is_none()
            && f.sign.is_none()
            && f.compression().is_none()
            && *f.ident == f.attribute
    });
    let fields = if plain {
        let names = entity.fields.iter().map(|f| &f.attribute);
        quote!(&#krate::FieldModel::plain([#(#names),*]))
    } else {
        let fields = entity.fields.iter().map(|f| {
            let field = f.ident.to_string();
            let attribute = &f.attribute;
            let compressed = f.compression().map(|_| quote!(.compressed()));
            match (f.encrypt, f.sign) {
                (Some(_), _) => {
                    quote!(#krate::FieldModel::new(#field, #attribute).encrypted() #compressed)
                }
                (None, Some(_)) => {
                    quote!(#krate::FieldModel::new(#field, #attribute).signed() #compressed)
                }
                (None, None) => quote!(#krate::FieldModel::new(#field, #attribute) #compressed),
            }
        });
        quote!(&[#(#fields),*])
    };
    let managed = super::managed::model(entity);
    let lifecycle = super::lifecycle::model(entity);
    let tenant = super::tenant::model(entity);
    // Only what differs from `MODEL_DEFAULTS` is spelled out.
    let mut settings = TokenStream::new();
    if version != 1 {
        settings.extend(quote!(version: #version,));
    }
    if schema_version != 1 {
        settings.extend(quote!(schema_version: #schema_version,));
    }
    if entity.table.is_some() {
        settings.extend(quote!(table: #table,));
    }
    if entity.identity_attribute.is_some() {
        settings.extend(quote!(identity_attribute: #identity_attribute,));
    }
    if entity.version_attribute.is_some() {
        settings.extend(quote!(version_attribute: #version_attribute,));
    }
    if entity.version_is_string {
        settings.extend(quote!(version_type: #krate::VersionType::#version_type,));
    }
    let unset =
        |tokens: &TokenStream, default: TokenStream| tokens.to_string() == default.to_string();
    if !unset(&managed, quote!(#krate::managed::ManagedModel::NONE)) {
        settings.extend(quote!(managed: #managed,));
    }
    if !unset(&lifecycle, quote!(#krate::lifecycle::LifecycleModel::NONE)) {
        settings.extend(quote!(lifecycle: #lifecycle,));
    }
    if entity.tenant.is_some() {
        settings.extend(quote!(tenant: #tenant,));
    }
    quote! {
        const MODEL: &'static #krate::EntityModel = &#krate::EntityModel {
            name: #name,
            schema: #schema,
            primary: #primary,
            indexes: &[#(#indexes),*],
            fields: #fields,
            #settings
            ..#krate::__private::MODEL_DEFAULTS
        };
    }
}

fn index(entity: &Entity, index: &Index) -> TokenStream {
    let krate = &entity.krate;
    let name = index.name.to_string();
    let physical = match &index.physical {
        Some(p) => quote!(::core::option::Option::Some(#p)),
        None => quote!(::core::option::Option::None),
    };
    let kind = match index.kind {
        IndexKind::Primary => quote!(Primary),
        IndexKind::Global => quote!(Global),
        IndexKind::Local => quote!(Local),
    };
    let pk = key(entity, &index.pk);
    let sk = match &index.sk {
        Some(sk) => {
            let sk = key(entity, sk);
            quote!(::core::option::Option::Some(#sk))
        }
        None => quote!(::core::option::Option::None),
    };
    let multi_attribute = native_keys(entity, index);
    let projection = projection(entity, index);
    if !multi_attribute.is_empty() {
        return quote! {
            #krate::IndexModel {
                name: #name,
                index_name: #physical,
                kind: #krate::IndexKind::#kind,
                pk: #pk,
                sk: #sk,
                multi_attribute: &[#(#multi_attribute),*],
                projection: #projection,
            }
        };
    }
    match &index.physical {
        None => quote!(#krate::IndexModel::table(#pk, #sk)),
        Some(physical) if ProjectionDecl::is_all(&index.projection) => {
            quote! {
                #krate::IndexModel::secondary(#name, #physical, #krate::IndexKind::#kind, #pk, #sk)
            }
        }
        Some(physical) => quote! {
            #krate::IndexModel::secondary(#name, #physical, #krate::IndexKind::#kind, #pk, #sk)
                .with_projection(#projection)
        },
    }
}

/// `IndexProjection::...`, an `include(..)` naming its fields' attributes.
fn projection(entity: &Entity, index: &Index) -> TokenStream {
    let krate = &entity.krate;
    match index.projection.as_ref().map(|d| &d.projection) {
        None | Some(Projection::All) => quote!(#krate::IndexProjection::All),
        Some(Projection::KeysOnly) => quote!(#krate::IndexProjection::KeysOnly),
        Some(Projection::Include(fields)) => {
            let attributes = fields.iter().map(|&(f, _)| &entity.fields[f].attribute);
            quote!(#krate::IndexProjection::Include(&[#(#attributes),*]))
        }
    }
}

fn key(entity: &Entity, key: &Key) -> TokenStream {
    let krate = &entity.krate;
    let attribute = &key.attribute;
    let template = key.template(&entity.fields);
    let composites = key
        .composites
        .iter()
        .map(|c| entity.fields[c.field].ident.to_string());
    let number = key.number.is_some();
    match key.sharding() {
        None if !number => {
            quote!(#krate::KeyModel::text(#attribute, &[#(#composites),*], #template))
        }
        sharding => {
            let shards = match sharding {
                Some((shards, count)) => {
                    let spec = super::keys::shard_spec(entity, shards, count);
                    quote!(::core::option::Option::Some(#spec))
                }
                None => quote!(::core::option::Option::None),
            };
            quote! {
                #krate::KeyModel { attribute: #attribute, composites: &[#(#composites),*], template: #template, number: #number, shards: #shards }
            }
        }
    }
}

/// A multi-attribute index's attributes, each typed by its field's type.
fn native_keys(entity: &Entity, index: &Index) -> Vec<TokenStream> {
    let krate = &entity.krate;
    let Some(multi) = &index.multi_attribute else {
        return Vec::new();
    };
    multi
        .attributes()
        .map(|(a, sort)| {
            let field = &entity.fields[a.field];
            let (attribute, name, ty) = (&field.attribute, field.ident.to_string(), field.ty);
            quote! {
                #krate::NativeKeyModel {
                    attribute: #attribute,
                    field: #name,
                    sort: #sort,
                    scalar: <#ty as #krate::NativeKey>::SCALAR,
                }
            }
        })
        .collect()
}
