//! `#[derive(KeyPart)]`'s code: `KeyPart`, `ToAttribute` and
//! `FromAttribute` for a unit-only enum or a newtype.

use crate::model::key_part::{KeyPartType, Shape, Variant};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub fn expand(model: &KeyPartType) -> TokenStream {
    match &model.shape {
        Shape::Enum(variants) => unit_enum(model, variants),
        Shape::Newtype(inner) => newtype(model, inner),
        Shape::Other => TokenStream::new(),
    }
}

fn unit_enum(model: &KeyPartType, variants: &[Variant]) -> TokenStream {
    let (ident, krate) = (model.ident(), &model.krate);
    let names: Vec<&str> = variants.iter().map(|v| v.stored.as_str()).collect();
    let variants: Vec<&syn::Ident> = variants.iter().map(|v| &v.variant.ident).collect();
    let expected = format!("expected one of: {}", names.join(", "));
    let [out, text, name, value, other] = locals();
    quote! {
        #[automatically_derived]
        impl #krate::KeyPart for #ident {
            fn encode_key(&self, #out: &mut ::std::string::String) {
                #krate::key::escape_into(match self { #(Self::#variants => #names,)* }, #out)
            }

            fn decode_key(#text: &str) -> ::core::result::Result<Self, #krate::KeyPartError> {
                let #text = #krate::key::unescape(#text)?;
                match &*#text {
                    #(#names => ::core::result::Result::Ok(Self::#variants),)*
                    _ => ::core::result::Result::Err(#krate::KeyPartError::new(#expected)),
                }
            }
        }

        #[automatically_derived]
        impl #krate::ToAttribute for #ident {
            fn to_attribute(&self) -> ::core::result::Result<::core::option::Option<#krate::__private::AttributeValue>, #krate::AttributeError> {
                let #name = match self { #(Self::#variants => #names,)* };
                ::core::result::Result::Ok(::core::option::Option::Some(
                    #krate::__private::AttributeValue::S(::std::string::ToString::to_string(#name)),
                ))
            }
        }

        #[automatically_derived]
        impl #krate::FromAttribute for #ident {
            fn from_attribute(#value: #krate::__private::AttributeValue) -> ::core::result::Result<Self, #krate::AttributeError> {
                let #text = <::std::string::String as #krate::FromAttribute>::from_attribute(#value)?;
                match #text.as_str() {
                    #(#names => ::core::result::Result::Ok(Self::#variants),)*
                    #other => ::core::result::Result::Err(#krate::AttributeError::Invalid(
                        ::std::format!("`{}`: {}", #other, #expected),
                    )),
                }
            }
        }
    }
}

fn newtype(model: &KeyPartType, inner: &syn::Type) -> TokenStream {
    let (ident, krate) = (model.ident(), &model.krate);
    let [out, text, _, value, _] = locals();
    quote! {
        #[automatically_derived]
        impl #krate::KeyPart for #ident {
            #[inline]
            fn encode_key(&self, #out: &mut ::std::string::String) {
                <#inner as #krate::KeyPart>::encode_key(&self.0, #out)
            }

            fn decode_key(#text: &str) -> ::core::result::Result<Self, #krate::KeyPartError> {
                <#inner as #krate::KeyPart>::decode_key(#text).map(Self)
            }
        }

        #[automatically_derived]
        impl #krate::ToAttribute for #ident {
            #[inline]
            fn to_attribute(&self) -> ::core::result::Result<::core::option::Option<#krate::__private::AttributeValue>, #krate::AttributeError> {
                <#inner as #krate::ToAttribute>::to_attribute(&self.0)
            }
        }

        #[automatically_derived]
        impl #krate::FromAttribute for #ident {
            #[inline]
            fn from_attribute(#value: #krate::__private::AttributeValue) -> ::core::result::Result<Self, #krate::AttributeError> {
                <#inner as #krate::FromAttribute>::from_attribute(#value).map(Self)
            }

            fn from_missing() -> ::core::option::Option<Self> {
                <#inner as #krate::FromAttribute>::from_missing().map(Self)
            }
        }
    }
}

/// What stands in for a failed derive: the three impls, so that entities
/// using the type report nothing more.
pub fn fallback(model: &KeyPartType) -> TokenStream {
    if !model.input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let (ident, krate) = (model.ident(), &model.krate);
    let value = quote!(#krate::__private::AttributeValue);
    quote! {
        #[automatically_derived]
        impl #krate::KeyPart for #ident {
            fn encode_key(&self, _: &mut ::std::string::String) {
                ::core::unimplemented!()
            }
            fn decode_key(_: &str) -> ::core::result::Result<Self, #krate::KeyPartError> {
                ::core::unimplemented!()
            }
        }
        #[automatically_derived]
        impl #krate::ToAttribute for #ident {
            fn to_attribute(&self) -> ::core::result::Result<::core::option::Option<#value>, #krate::AttributeError> {
                ::core::unimplemented!()
            }
        }
        #[automatically_derived]
        impl #krate::FromAttribute for #ident {
            fn from_attribute(_: #value) -> ::core::result::Result<Self, #krate::AttributeError> {
                ::core::unimplemented!()
            }
        }
    }
}

/// The impls' parameters and locals, named so that no constant of the
/// caller's (a lowercase `out` or `value`) is read as a pattern.
fn locals() -> [Ident; 5] {
    ["out", "text", "name", "value", "other"]
        .map(|n| Ident::new(&format!("__entity_{n}"), Span::mixed_site()))
}
