//! Index views: `TaskByOwnerView`, what a query of an index that projects
//! less than whole items (`projection = keys_only | include(..)`) returns.
//!
//! A view holds exactly the fields the index holds. Key composites are
//! read back from the key text (DynamoDB projects the table's and the
//! index's keys into every index); `include(..)` fields, and a
//! multi-attribute index's key fields, from their own attributes. A
//! composite whose key text is lossy (a time bucket, a case-folded value)
//! is on the view only when `include(..)` lists it. `hydrate` reads whole
//! items by the view's table key, composed from its fields (kept as read
//! when a table key composite is lossy or the partition is sharded).

use crate::model::names::{key_names, view_type_name};
use crate::model::projection::{Projection, ProjectionDecl};
use crate::model::{Entity, Index, Key};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Where a view field's value comes from.
enum Source {
    /// Its own attribute, projected.
    Attribute,
    /// A key's text, parsed (the table's, or the index's own).
    Key,
}

/// The view type of every projected index.
pub fn expand(entity: &Entity) -> TokenStream {
    entity
        .indexes
        .iter()
        .filter(|index| !ProjectionDecl::is_all(&index.projection))
        .map(|index| view(entity, index))
        .collect()
}

/// Whether composite `c` of `key` reads back as its field's value.
fn recoverable(key: &Key, c: usize) -> bool {
    let composite = &key.composites[c];
    composite.bucket.is_none() && key.value_casing.is_none()
}

/// The fields a projected index holds, in field order, and where each is
/// read from.
fn view_fields(entity: &Entity, index: &Index) -> Vec<(usize, Source)> {
    let mut sources: Vec<Option<Source>> = entity.fields.iter().map(|_| None).collect();
    if let Some(ProjectionDecl {
        projection: Projection::Include(fields),
        ..
    }) = &index.projection
    {
        for &(f, _) in fields {
            sources[f] = Some(Source::Attribute);
        }
    }
    if let Some(multi) = &index.multi_attribute {
        for (attribute, _) in multi.attributes() {
            sources[attribute.field] = Some(Source::Attribute);
        }
    }
    for (_, key) in parsed_keys(entity, index) {
        for c in 0..key.composites.len() {
            let f = key.composites[c].field;
            if sources[f].is_none() && recoverable(key, c) {
                sources[f] = Some(Source::Key);
            }
        }
    }
    sources
        .into_iter()
        .enumerate()
        .filter_map(|(f, source)| source.map(|s| (f, s)))
        .collect()
}

/// The composed keys an index item holds: the table's, then the index's
/// own, each with the entity's parser for it.
fn parsed_keys<'e>(entity: &'e Entity, index: &'e Index) -> Vec<(syn::Ident, &'e Key)> {
    let table = entity
        .primary
        .keys()
        .map(|(which, key)| (key_names(&entity.primary, which).parse, key));
    let own = index
        .own_keys()
        .map(|(which, key)| (key_names(index, which).parse, key));
    table.chain(own).collect()
}

/// Whether the table key composes back from the view's fields (each of its
/// composites read back exactly, no shard suffix); else the view keeps the
/// key it was read with.
fn key_composes(entity: &Entity) -> bool {
    entity.primary.keys().all(|(_, key)| {
        key.sharding().is_none() && (0..key.composites.len()).all(|c| recoverable(key, c))
    })
}

/// `primary_key(&self)`'s body, and the field that keeps the key when it
/// does not compose.
fn primary_key(entity: &Entity) -> (TokenStream, Option<TokenStream>) {
    let krate = &entity.krate;
    let ident = entity.ident;
    if !key_composes(entity) {
        let field = quote!(__entity_key: #krate::PrimaryKey<#ident>,);
        return (
            quote!(::core::clone::Clone::clone(&self.__entity_key)),
            Some(field),
        );
    }
    let compose = |which: &str, key: &Key| {
        let compose_of = key_names(&entity.primary, which).compose_of;
        let args = key.composites.iter().map(|c| {
            let field = entity.fields[c.field].ident;
            quote!(&self.#field)
        });
        quote!(#ident::#compose_of(#(#args),*))
    };
    let pk_attribute = &entity.primary.pk.attribute;
    let pk = compose("pk", &entity.primary.pk);
    let sk = match &entity.primary.sk {
        Some(key) => {
            let attribute = &key.attribute;
            let sk = compose("sk", key);
            quote!(::core::option::Option::Some((#attribute, #sk)))
        }
        None => quote!(::core::option::Option::None),
    };
    (
        quote!(#krate::PrimaryKey::new(#pk_attribute, #pk, #sk)),
        None,
    )
}

fn view(entity: &Entity, index: &Index) -> TokenStream {
    let krate = &entity.krate;
    let private = quote!(#krate::__private);
    let ident = entity.ident;
    let vis = entity.vis;
    let name = &entity.name;
    let view = view_type_name(entity, index);
    let fields = view_fields(entity, index);
    let keys_only = matches!(
        index.projection,
        Some(ProjectionDecl {
            projection: Projection::KeysOnly,
            ..
        })
    );
    // Without the identity attribute, a key that is not this entity's is
    // another entity's item sharing the index.
    let foreign = keys_only;
    let identity = (!keys_only).then(|| {
        quote!(#private::check_identity(&__entity_item, <#ident as #krate::Entity>::MODEL.identity_attribute, #name)?;)
    });
    let identity_filter = match keys_only {
        true => quote!(::core::option::Option::None),
        false => {
            quote!(::core::option::Option::Some((<#ident as #krate::Entity>::MODEL.identity_attribute, #name)))
        }
    };

    // Each composed key parsed once, taking the fields not taken before.
    let mut taken: Vec<usize> = Vec::new();
    let mut parses = TokenStream::new();
    for (parse, key) in parsed_keys(entity, index) {
        let wanted: Vec<bool> = (0..key.composites.len())
            .map(|c| {
                let f = key.composites[c].field;
                let from_key = fields
                    .iter()
                    .any(|(g, s)| *g == f && matches!(s, Source::Key));
                let fresh = from_key && !taken.contains(&f);
                if fresh {
                    taken.push(f);
                }
                fresh
            })
            .collect();
        if !wanted.contains(&true) {
            continue;
        }
        let names = key.composites.iter().zip(&wanted).map(|(c, &wanted)| {
            let local = format_ident!("__entity_key_{}", c.field);
            match wanted {
                false => quote!(_),
                true => quote!(#local),
            }
        });
        let attribute = &key.attribute;
        let text = if std::ptr::eq(key, &entity.primary.pk) {
            quote!(&__entity_key.pk)
        } else {
            quote!(#private::view_key_text(&__entity_item, #name, #attribute, #foreign)?)
        };
        parses.extend(quote! {
            let (#(#names,)*) = #private::view_parsed(#ident::#parse(#text), #name, #attribute, #foreign)?;
        });
    }

    let attribute_fields: Vec<usize> = fields
        .iter()
        .filter(|(_, s)| matches!(s, Source::Attribute))
        .map(|(f, _)| *f)
        .collect();
    let slots: Vec<_> = attribute_fields
        .iter()
        .map(|f| format_ident!("__entity_slot_{}", f))
        .collect();
    let attributes = attribute_fields
        .iter()
        .map(|&f| &entity.fields[f].attribute);
    let read_slots = (!slots.is_empty())
        .then(|| quote!(let [#(#slots),*] = #private::slots(__entity_item, &[#(#attributes),*]);));
    let inits = fields.iter().map(|(f, source)| {
        let field = &entity.fields[*f];
        let ident = field.ident;
        match source {
            Source::Attribute => {
                let slot = format_ident!("__entity_slot_{}", f);
                super::item::read_field(entity, *f, &slot)
            }
            Source::Key => {
                let local = format_ident!("__entity_key_{}", f);
                match field.optional {
                    true => quote!(#ident: ::core::option::Option::Some(#local)),
                    false => quote!(#ident: #local),
                }
            }
        }
    });

    let declared = fields.iter().map(|(f, source)| {
        let field = &entity.fields[*f];
        let (ident, ty, attribute) = (field.ident, field.ty, &field.attribute);
        let doc = match source {
            Source::Attribute => format!("`{ident}`, from attribute `{attribute}`."),
            Source::Key => format!("`{ident}`, read back from its key."),
        };
        quote! {
            #[doc = #doc]
            pub #ident: #ty
        }
    });
    let idents: Vec<_> = fields
        .iter()
        .map(|(f, _)| entity.fields[*f].ident)
        .collect();
    let names: Vec<String> = idents.iter().map(|i| i.to_string()).collect();
    // The derives a view can offer, each applying when every field's type
    // has it (bounds under `for<..>` are checked where used).
    let mut types: Vec<&syn::Type> = Vec::new();
    for (f, _) in &fields {
        let ty = entity.fields[*f].ty;
        if !super::is_builtin_scalar(ty)
            && !types
                .iter()
                .any(|t| quote!(#t).to_string() == quote!(#ty).to_string())
        {
            types.push(ty);
        }
    }
    let bounds = |bound: TokenStream| {
        let each = types.iter().map(|ty| quote!(for<'__entity> #ty: #bound));
        quote!(where #(#each),*)
    };
    let (debug, clone, eq) = (
        bounds(quote!(::core::fmt::Debug)),
        bounds(quote!(::core::clone::Clone)),
        bounds(quote!(::core::cmp::PartialEq)),
    );
    let accessor = &index.name;
    let physical = index
        .physical
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let what = match keys_only {
        true => "its keys".to_owned(),
        false => "its keys and the fields `include(..)` names".to_owned(),
    };
    let doc = format!(
        "What a query of `{ident}::{accessor}` returns: index `{physical}` holds {what}, so this holds exactly those fields (the composites read back from the keys). `client.hydrate(..)` reads the whole `{ident}`s."
    );
    let view_name = view.to_string();
    let (primary_key, stored) = primary_key(entity);
    let (keep, keep_clone, keep_eq) = match stored {
        Some(_) => (
            quote!(__entity_key),
            quote!(__entity_key: ::core::clone::Clone::clone(&self.__entity_key)),
            quote!(&&self.__entity_key == other.__entity_key),
        ),
        // Read to check it is there; the key composes from the fields.
        None => (quote!(), quote!(), quote!()),
    };
    let discard = stored_none_discard(&keep);
    quote! {
        #[doc = #doc]
        #vis struct #view {
            #(#declared,)*
            #stored
        }

        impl #view {
            fn __entity_read(__entity_item: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
                #identity
                let __entity_key = #private::view_key::<#ident>(&__entity_item, #foreign)?;
                #parses
                #read_slots
                #discard
                ::core::result::Result::Ok(Self { #(#inits,)* #keep })
            }
        }

        #[automatically_derived]
        impl #krate::IndexView for #view {
            type Entity = #ident;

            fn primary_key(&self) -> #krate::PrimaryKey<#ident> {
                #primary_key
            }
        }

        #[automatically_derived]
        impl #krate::Readable for #view {
            const TYPE_NAME: &'static str = #name;
            // Read through the same clients as the entity.
            type Scoped = #ident;

            fn identity_filter() -> ::core::option::Option<(&'static str, &'static str)> {
                #identity_filter
            }

            fn read(item: #krate::Item) -> ::core::result::Result<::core::option::Option<Self>, #krate::DecodeError> {
                #private::skip_foreign(Self::__entity_read(item))
            }

            fn read_strict(item: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
                Self::__entity_read(item)
            }

            fn key_attributes() -> ::std::vec::Vec<&'static str> {
                <#ident as #krate::Readable>::key_attributes()
            }

            fn number_key_attributes() -> ::std::vec::Vec<&'static str> {
                <#ident as #krate::Readable>::number_key_attributes()
            }

            fn lifecycles() -> ::std::vec::Vec<&'static #krate::lifecycle::LifecycleModel> {
                <#ident as #krate::Readable>::lifecycles()
            }

            fn index_kind(index_name: &str) -> ::core::option::Option<#krate::IndexKind> {
                <#ident as #krate::Readable>::index_kind(index_name)
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #view #debug {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#view_name)
                    #(.field(#names, &self.#idents))*
                    .finish()
            }
        }

        #[automatically_derived]
        impl ::core::clone::Clone for #view #clone {
            fn clone(&self) -> Self {
                Self { #(#idents: ::core::clone::Clone::clone(&self.#idents),)* #keep_clone }
            }
        }

        #[automatically_derived]
        impl ::core::cmp::PartialEq for #view #eq {
            fn eq(&self, other: &Self) -> bool {
                true #(&& self.#idents == other.#idents)* #keep_eq
            }
        }
    }
}

/// `let _ = __entity_key;` when the view does not keep the key it read.
fn stored_none_discard(keep: &TokenStream) -> Option<TokenStream> {
    keep.is_empty().then(|| quote!(let _ = __entity_key;))
}

/// What `index`'s queries return: its view when it projects less than
/// whole items, else the entity.
pub fn output(entity: &Entity, index: &Index) -> TokenStream {
    let ident = entity.ident;
    match ProjectionDecl::is_all(&index.projection) {
        true => quote!(#ident),
        false => {
            let view = view_type_name(entity, index);
            quote!(#view)
        }
    }
}
