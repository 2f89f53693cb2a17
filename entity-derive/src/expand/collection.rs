//! `CollectionMember` and `CollectionPk`: how this entity joins collections,
//! for `#[derive(Collection)]` unions to check and query.

use crate::model::{Entity, Key, Segment};
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let mut specs = Vec::new();
    let mut pk_types = TokenStream::new();
    let bounds = super::key_bounds(entity);
    for index in entity.indexes.iter() {
        let (Some(collection), Some(sk), Some(physical)) =
            (&index.collection, &index.sk, &index.physical)
        else {
            continue;
        };
        let position = specs.len();
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
        let sk_prefix = literals.join("#");
        let prefixes: Vec<String> = if clustered {
            (1..=path.len())
                .filter_map(|depth| literals.get(..2 + depth).map(|l| l.join("#")))
                .collect()
        } else {
            Vec::new()
        };
        specs.push(quote! {
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
                collection_prefixes: &[#(#prefixes),*],
            }
        });
        let types = index
            .pk
            .composites
            .iter()
            .map(|c| entity.fields[c.field].ty);
        pk_types.extend(quote! {
            #[automatically_derived]
            impl #krate::collection::CollectionPk<#position> for #ident #bounds {
                type Pk = (#(#types,)*);
            }
        });
    }
    quote! {
        #[automatically_derived]
        impl #krate::CollectionMember for #ident #bounds {
            const COLLECTIONS: &'static [#krate::collection::CollectionSpec] = &[#(#specs),*];
        }

        #[automatically_derived]
        impl #krate::collection::CollectionPk<{ usize::MAX }> for #ident {
            type Pk = #krate::collection::NotAMember;
        }

        #pk_types
    }
}

/// The literal segments before the first field: schema, version, collection
/// path and entity.
fn leading_literals(key: &Key) -> Vec<String> {
    key.segments
        .iter()
        .map_while(|s| match s {
            Segment::Literal(text) => Some(text.clone()),
            Segment::Field { .. } => None,
        })
        .collect()
}
