//! `value_casing = "lower"` on a key: composite values are case-folded
//! where the key is composed (composers, query accessors, collection
//! queries), and each composite's type is checked to fold.

use crate::attr::Casing;
use crate::model::{Entity, Key};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// The key argument `arg` as the key folds it: itself, or wrapped.
pub fn fold(entity: &Entity, key: &Key, arg: TokenStream) -> TokenStream {
    let krate = &entity.krate;
    match key.value_casing {
        Some((Casing::Upper, _)) => quote!(#krate::__private::FoldedArg::upper(&#arg)),
        Some(_) => quote!(#krate::__private::FoldedArg::lower(&#arg)),
        None => arg,
    }
}

/// Every composite of a folding key is of a type whose folded text parses
/// back; the error is on the composite.
pub fn checks(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let mut checks = TokenStream::new();
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        for (_, key) in index.keys() {
            if key.value_casing.is_none() {
                continue;
            }
            for c in &key.composites {
                let ty = entity.fields[c.field].key_ty;
                checks.extend(quote_spanned! {c.token=>
                    const _: () = #krate::__private::assert_folds_case::<#ty>();
                });
            }
        }
    }
    checks
}
