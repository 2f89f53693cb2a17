//! `Entity::write_item`, `from_item` and `primary_key`: field-by-field attribute
//! conversion with no intermediate representation.

use crate::model::{Entity, Key};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

pub fn expand(entity: &Entity) -> TokenStream {
    let write_item = write_item(entity);
    let from_item = from_item(entity);
    let primary_key = primary_key(entity);
    let key_fields = key_fields(entity);
    quote! { #write_item #from_item #primary_key #key_fields }
}

fn write_item(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let name = &entity.name;
    let private = quote!(#krate::__private);
    let plain = plain_fields(entity);
    // The plain fields in one tuple call, when they fit one.
    let tuple = (!plain.is_empty() && plain.len() <= MAX_FIELDS).then(|| {
        let attributes = plain.iter().map(|&f| &entity.fields[f].attribute);
        let values = plain.iter().map(|&f| {
            let ident = entity.fields[f].ident;
            quote!(&self.#ident)
        });
        quote!(#private::put_fields(__entity_item, #name, &[#(#attributes),*], (#(#values,)*))?;)
    });
    let one_by_one = |f: &usize| tuple.is_none() || !plain.contains(f);
    let fields = entity.fields.iter().enumerate().filter(|(f, _)| one_by_one(f)).map(|(f, field)| {
        let (ident, attribute) = (field.ident, &field.attribute);
        if let Some(ttl) = super::lifecycle::ttl_field(entity, f) {
            super::lifecycle::put_ttl(entity, &ttl)
        } else if let Some(compress) = field.compression() {
            let ty = field.ty;
            let min = match compress.min {
                Some(min) => quote!(#min as usize),
                None => quote!(#krate::compress::DEFAULT_MIN),
            };
            quote_spanned! {ty.span()=>
                #private::put_compressed::<#ty>(__entity_item, #name, #attribute, &self.#ident, #min)?;
            }
        } else if field.serde {
            quote! {
                #private::put_attribute(__entity_item, #name, #attribute, #private::to_serde_attribute(&self.#ident))?;
            }
        } else {
            let ty = field.ty;
            quote_spanned! {ty.span()=>
                #private::put_field::<#ty>(__entity_item, #name, #attribute, &self.#ident)?;
            }
        }
    });
    let (keys, strings) = put_keys(entity);
    let model = quote!(<Self as #krate::Entity>::MODEL);
    if plain.len() == entity.fields.len() && tuple.is_some() && keys.is_empty() {
        // Every field plain, every key a string: one call.
        let values = entity.fields.iter().map(|f| {
            let ident = f.ident;
            quote!(&self.#ident)
        });
        return quote! {
            #[inline]
            fn write_item(&self, __entity_item: &mut #krate::ItemWriter) -> ::core::result::Result<(), #krate::EncodeError> {
                #private::plain_item(__entity_item, #model, (#(#values,)*), [#(#strings),*])
            }
        };
    }
    let keys = match strings.is_empty() {
        true => keys,
        false => quote!(#keys #private::put_keys(__entity_item, [#(#strings),*]);),
    };
    quote! {
        #[inline]
        fn write_item(&self, __entity_item: &mut #krate::ItemWriter) -> ::core::result::Result<(), #krate::EncodeError> {
            #tuple
            #(#fields)*
            #keys
            #private::put_identity(__entity_item, <Self as #krate::Entity>::MODEL);
            ::core::result::Result::Ok(())
        }
    }
}

/// Puts every key attribute, each once (an LSI's partition key is the
/// table's): the number keys and those of sparse indexes as statements,
/// the other string keys as `(attribute, value)` pairs for one call. A
/// sparse index's keys are put only when every optional composite of the
/// index is `Some`: otherwise the item is left out of the index, with none
/// of its keys.
fn put_keys(entity: &Entity) -> (TokenStream, Vec<TokenStream>) {
    let krate = &entity.krate;
    let private = quote!(#krate::__private);
    let mut written: Vec<&str> = Vec::new();
    let mut keys = TokenStream::new();
    // Unconditional string keys go in one call.
    let mut strings: Vec<TokenStream> = Vec::new();
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        let optional = index.optional_fields(&entity.fields);
        let mut puts = TokenStream::new();
        for (which, key) in index.own_keys() {
            if written.contains(&key.attribute.as_str()) {
                continue;
            }
            written.push(&key.attribute);
            let attribute = &key.attribute;
            let names = super::key_names(index, which);
            let value = if optional.is_empty() {
                let compose = names.compose;
                quote!(self.#compose())
            } else {
                super::keys::compose_from_self(entity, key, &names.compose_of)
            };
            if key.number.is_some() {
                puts.extend(quote!(#private::put_number_key(__entity_item, #attribute, #value);));
            } else if optional.is_empty() {
                strings.push(quote!((#attribute, #value)));
            } else {
                puts.extend(quote!(#private::put_key(__entity_item, #attribute, #value);));
            }
        }
        if optional.is_empty() || puts.is_empty() {
            keys.extend(puts);
        } else {
            keys.extend(super::keys::when_present(
                entity,
                &optional,
                quote!({ #puts }),
                quote!({}),
            ));
            keys.extend(quote!(;));
        }
    }
    (keys, strings)
}

fn from_item(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let name = &entity.name;
    let private = quote!(#krate::__private);
    let slots: Vec<_> = (0..entity.fields.len())
        .map(|i| quote::format_ident!("__entity_slot_{}", i))
        .collect();
    let attributes = entity.fields.iter().map(|field| &field.attribute);
    let fields = slots
        .iter()
        .enumerate()
        .map(|(f, slot)| read_field(entity, f, slot));
    let checks = match &entity.upgrade_from {
        None => quote!(#private::check_item(&__entity_item, <Self as #krate::Entity>::MODEL)?;),
        Some(_) => {
            let version_check = super::upgrade::version_check(entity);
            quote! {
                #private::check_identity(&__entity_item, <Self as #krate::Entity>::MODEL.identity_attribute, #name)?;
                #version_check
            }
        }
    };
    let n = entity.fields.len();
    // One pass, no hashing: each attribute is moved to its field's slot or
    // dropped; all-plain entities read their fields as one tuple.
    let read = if (1..=MAX_FIELDS).contains(&n) && plain_fields(entity).len() == n {
        let idents = entity.fields.iter().map(|f| f.ident);
        // Hygienic locals not named after the fields: a constant of the
        // caller's named like a field would be matched as a pattern.
        let locals: Vec<_> = (0..n)
            .map(|i| syn::Ident::new(&format!("__entity_f{i}"), proc_macro2::Span::mixed_site()))
            .collect();
        let types = entity.fields.iter().map(|f| f.ty);
        if entity.upgrade_from.is_none() {
            // Checked and read in one call.
            return quote! {
                #[inline]
                fn from_item(__entity_item: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
                    let (#(#locals,)*) = #private::read_plain_item::<(#(#types,)*), #n>(__entity_item, <Self as #krate::Entity>::MODEL)?;
                    ::core::result::Result::Ok(Self { #(#idents: #locals,)* })
                }
            };
        }
        quote! {
            let (#(#locals,)*) = #private::read_fields::<(#(#types,)*)>(__entity_item, #name, &[#(#attributes),*])?;
            ::core::result::Result::Ok(Self { #(#idents: #locals,)* })
        }
    } else {
        quote! {
            let [#(#slots),*] = #private::slots(__entity_item, &[#(#attributes),*]);
            ::core::result::Result::Ok(Self { #(#fields,)* })
        }
    };
    quote! {
        #[inline]
        fn from_item(__entity_item: #krate::Item) -> ::core::result::Result<Self, #krate::DecodeError> {
            #checks
            #read
        }
    }
}

/// `field: value` for field `f`, read from its attribute's `slot` (an
/// `Option<AttributeValue>`) as `from_item` reads it.
pub(super) fn read_field(entity: &Entity, f: usize, slot: &syn::Ident) -> TokenStream {
    let krate = &entity.krate;
    let name = &entity.name;
    let private = quote!(#krate::__private);
    let field = &entity.fields[f];
    let (ident, attribute, ty) = (field.ident, &field.attribute, field.ty);
    if let Some(ttl) = super::lifecycle::ttl_field(entity, f) {
        super::lifecycle::read_ttl(entity, &ttl, slot)
    } else if field.compression().is_some() {
        quote_spanned!(ty.span()=> #ident: #private::read_compressed::<#ty>(#slot, #name, #attribute)?)
    } else if field.serde {
        quote!(#ident: #private::read_serde_field::<#ty>(#slot, #name, #attribute)?)
    } else {
        quote_spanned!(ty.span()=> #ident: #private::read_field::<#ty>(#slot, #name, #attribute)?)
    }
}

/// The most fields converted through one tuple (the runtime's
/// `MAX_FIELDS`).
const MAX_FIELDS: usize = 16;

/// The fields converted by `ToAttribute`/`FromAttribute` (not serde, not
/// TTL, not compressed).
fn plain_fields(entity: &Entity) -> Vec<usize> {
    (0..entity.fields.len())
        .filter(|&f| {
            let field = &entity.fields[f];
            !field.serde
                && field.compression().is_none()
                && super::lifecycle::ttl_field(entity, f).is_none()
        })
        .collect()
}

/// `Entity::key_fields`: the table key parsed back into its fields'
/// attributes.
fn key_fields(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let pk = &entity.primary.pk;
    let sk_composites = entity
        .primary
        .sk
        .as_ref()
        .map_or(0, |sk| sk.composites.len());
    if sk_composites == 0
        && pk.composites.len() <= super::keys::MAX_TUPLE
        && simple_composites(entity, pk)
    {
        // Only the partition key holds fields.
        let attributes = pk
            .composites
            .iter()
            .map(|c| &entity.fields[c.field].attribute);
        let parse = super::key_names(&entity.primary, "pk").parse;
        return quote! {
            #[inline]
            fn key_fields(key: &#krate::PrimaryKey<Self>) -> #krate::Item {
                #krate::__private::key_item(&[#(#attributes),*], Self::#parse(&key.pk))
            }
        };
    }
    let blocks = entity
        .primary
        .keys()
        .map(|(which, key)| key_fields_of(entity, which, key));
    quote! {
        #[inline]
        fn key_fields(key: &#krate::PrimaryKey<Self>) -> #krate::Item {
            #[allow(unused_mut)]
            let mut __entity_item = #krate::Item::new();
            #(#blocks)*
            __entity_item
        }
    }
}

/// The attributes of one table key's composites, when the key parses. A
/// derived part (`{t:month}`) gives back no field: a bucket is not the
/// instant.
fn key_fields_of(entity: &Entity, which: &str, key: &Key) -> TokenStream {
    let krate = &entity.krate;
    let private = quote!(#krate::__private);
    let parse = super::key_names(&entity.primary, which).parse;
    let simple = key.composites.len() <= super::keys::MAX_TUPLE && simple_composites(entity, key);
    if key.composites.is_empty() {
        return TokenStream::new();
    }
    if simple {
        let attributes = key
            .composites
            .iter()
            .map(|c| &entity.fields[c.field].attribute);
        let text = if which == "pk" {
            quote!(&key.pk)
        } else {
            quote!(match &key.sk {
                ::core::option::Option::Some((_, sk)) => sk,
                ::core::option::Option::None => return __entity_item,
            })
        };
        return quote! {
            #private::key_fields(&mut __entity_item, &[#(#attributes),*], Self::#parse(#text));
        };
    }
    let names = key.composites.iter().map(|c| match c.bucket {
        Some(_) => quote!(_),
        None => {
            let ident = entity.fields[c.field].ident;
            quote!(#ident)
        }
    });
    let inserts = key
        .composites
        .iter()
        .filter(|c| c.bucket.is_none())
        .map(|c| {
            let field = &entity.fields[c.field];
            let (name, attribute) = (field.ident, &field.attribute);
            let value = if field.serde {
                quote!(#private::to_serde_attribute(&#name))
            } else {
                quote!(#krate::ToAttribute::to_attribute(&#name))
            };
            quote! {
                if let ::core::result::Result::Ok(::core::option::Option::Some(value)) = #value {
                    __entity_item.insert(::std::string::ToString::to_string(#attribute), value);
                }
            }
        });
    let text = if which == "pk" {
        quote!(::core::option::Option::Some(key.pk.as_str()))
    } else {
        quote!(key.sk.as_ref().map(|(_, sk)| sk.as_str()))
    };
    quote! {
        if let ::core::option::Option::Some(text) = #text {
            if let ::core::result::Result::Ok((#(#names,)*)) = Self::#parse(text) {
                #(#inserts)*
            }
        }
    }
}

fn primary_key(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let pk_attribute = &entity.primary.pk.attribute;
    let sk = match &entity.primary.sk {
        Some(sk) => {
            let attribute = &sk.attribute;
            quote!(::core::option::Option::Some((#attribute, self.sk())))
        }
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #[inline]
        fn primary_key(&self) -> #krate::PrimaryKey<Self> {
            #krate::PrimaryKey::new(#pk_attribute, self.pk(), #sk)
        }
    }
}

/// Whether every composite of `key` reads back as its field's own value
/// (no bucket, no serde field).
fn simple_composites(entity: &Entity, key: &Key) -> bool {
    key.composites
        .iter()
        .all(|c| c.bucket.is_none() && !entity.fields[c.field].serde)
}
