//! `CollectionMember` and `CollectionPk`: how this entity joins collections,
//! for `#[derive(Collection)]` unions to check and query.

use crate::model::{CollectionDecl, Entity, Index, Key, Segment};
use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

pub fn expand(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let bounds = super::key_bounds(entity);
    let indexes = std::iter::once(&entity.primary).chain(&entity.indexes);
    let memberships: Vec<Membership> = indexes.filter_map(membership).collect();
    let specs = memberships.iter().map(|m| collection_spec(entity, m));
    let pk_types = memberships
        .iter()
        .enumerate()
        .map(|(position, m)| pk_type_impl(entity, position, m.index));
    let specs = (!memberships.is_empty()).then(|| {
        quote!(const COLLECTIONS: &'static [#krate::collection::CollectionSpec] = &[#(#specs),*];)
    });
    quote! {
        #[automatically_derived]
        impl #krate::CollectionMember for #ident #bounds {
            #specs
        }

        #[automatically_derived]
        impl #krate::collection::CollectionPk<{ usize::MAX }> for #ident {
            type Pk = #krate::collection::NotAMember;
        }

        #(#pk_types)*
    }
}

/// An index that joins a collection: one with a sort key, on a physical
/// index or on the table's keys (`physical` is `None`).
struct Membership<'m> {
    index: &'m Index,
    collection: &'m CollectionDecl,
    sk: &'m Key,
    physical: Option<&'m LitStr>,
}

fn membership(index: &Index) -> Option<Membership<'_>> {
    Some(Membership {
        index,
        collection: index.collection.as_ref()?,
        sk: index.sk.as_ref()?,
        physical: index.physical.as_ref(),
    })
}

/// The `CollectionSpec` the union's checks and query read.
fn collection_spec(entity: &Entity, m: &Membership) -> TokenStream {
    let krate = &entity.krate;
    let Membership {
        index,
        collection,
        sk,
        physical,
    } = m;
    let path = &collection.path;
    let clustered = collection.clustered;
    let logical = index.name.to_string();
    let (pk_attribute, sk_attribute) = (&index.pk.attribute, &sk.attribute);
    let pk_fields: Vec<String> = index
        .pk
        .composites
        .iter()
        .map(|c| entity.fields[c.field].ident.to_string())
        .collect();
    let pk_texts: Vec<String> = (0..=index.pk.composites.len())
        .map(|k| index.pk.text_before(k))
        .collect();
    let literals = leading_literals(sk);
    // A custom format's prefix is its text before the first field; the
    // collection layout's stops at the entity segment, before the `#`.
    let custom_format = index.keys().any(|(_, k)| k.format.is_some());
    let sk_prefix = match sk.format {
        Some(_) => sk.text_before(0),
        None => literals.join("#"),
    };
    let prefixes = collection_prefixes(&literals, path.len(), clustered);
    let physical = match physical {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #krate::collection::CollectionSpec {
            path: &[#(#path),*],
            clustered: #clustered,
            index: #logical,
            index_name: #physical,
            pk_attribute: #pk_attribute,
            sk_attribute: #sk_attribute,
            pk_fields: &[#(#pk_fields),*],
            pk_texts: &[#(#pk_texts),*],
            sk_prefix: #sk_prefix,
            custom_format: #custom_format,
            collection_prefixes: &[#(#prefixes),*],
        }
    }
}

/// A clustered collection's sort key prefix at each depth of its path
/// (schema, version, then the path so far); none for an isolated one.
fn collection_prefixes(literals: &[String], depth: usize, clustered: bool) -> Vec<String> {
    if !clustered {
        return Vec::new();
    }
    (1..=depth)
        .filter_map(|depth| literals.get(..2 + depth).map(|l| l.join("#")))
        .collect()
}

/// `CollectionPk<position>`: the types of the partition key composites of
/// the entity's `position`th collection.
fn pk_type_impl(entity: &Entity, position: usize, index: &Index) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let bounds = super::key_bounds(entity);
    let types = index
        .pk
        .composites
        .iter()
        .map(|c| entity.fields[c.field].key_ty);
    quote! {
        #[automatically_derived]
        impl #krate::collection::CollectionPk<#position> for #ident #bounds {
            type Pk = (#(#types,)*);
        }
    }
}

/// The literal segments before the first field: schema, version, collection
/// path and entity.
fn leading_literals(key: &Key) -> Vec<String> {
    key.segments
        .iter()
        .map_while(|s| match s {
            Segment::Literal(text) => Some(text.clone()),
            Segment::Field { .. } | Segment::Suffix(_) => None,
        })
        .collect()
}
