//! `#[derive(KeyPart)]`: unit-only enums (stored as their variant names) and
//! single-field newtypes (stored as the inner value), in keys and as
//! attributes.

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr};

pub fn derive(input: &DeriveInput) -> Result<TokenStream, TokenStream> {
    let cx = Ctxt::default();
    let krate = crate::model::crate_path_for_key_part(&cx, &input.attrs);
    if !input.generics.params.is_empty() {
        cx.error(
            &input.generics,
            "`#[derive(KeyPart)]` does not support generic types",
        );
    }
    let body = match &input.data {
        Data::Enum(data) => unit_enum(&cx, input, data, &krate),
        Data::Struct(data) => match &data.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                Some(newtype(input, &f.unnamed[0].ty, &krate))
            }
            _ => None,
        },
        Data::Union(_) => None,
    };
    let body = match body {
        Some(body) => body,
        None if cx.has_errors() => TokenStream::new(),
        None => {
            cx.error(
                &input.ident,
                "`#[derive(KeyPart)]` works on unit-only enums and single-field newtypes such as `struct UserId(String);`",
            );
            TokenStream::new()
        }
    };
    if cx.has_errors() {
        return Err(cx.into_compile_errors());
    }
    Ok(body)
}

fn unit_enum(
    cx: &Ctxt,
    input: &DeriveInput,
    data: &syn::DataEnum,
    krate: &TokenStream,
) -> Option<TokenStream> {
    let ident = &input.ident;
    let mut names = Vec::new();
    let mut variants = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            cx.error(
                &variant.fields,
                format!(
                    "variant `{}` holds data; a key enum has unit variants only",
                    variant.ident
                ),
            );
            continue;
        }
        let mut name = variant.ident.to_string();
        for attr in variant
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("key_part"))
        {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    name = meta.value()?.parse::<LitStr>()?.value();
                    Ok(())
                } else {
                    let name = meta
                        .path
                        .get_ident()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    Err(meta.error(format!(
                        "unknown `#[key_part]` key `{name}`{}; the only key is `rename`",
                        crate::ctxt::did_you_mean(&name, ["rename"])
                    )))
                }
            });
            if let Err(e) = result {
                cx.syn_error(e);
            }
        }
        if names.contains(&name) {
            cx.error(variant, format!("two variants are stored as `{name}`"));
        }
        names.push(name);
        variants.push(&variant.ident);
    }
    if data.variants.is_empty() {
        cx.error(ident, "an enum with no variants cannot be a key");
    }
    if cx.has_errors() {
        return None;
    }

    let expected = format!("expected one of: {}", names.join(", "));
    Some(quote! {
        #[automatically_derived]
        impl #krate::KeyPart for #ident {
            fn encode_key(&self, out: &mut ::std::string::String) {
                #krate::key::escape_into(match self { #(Self::#variants => #names,)* }, out)
            }

            fn decode_key(text: &str) -> ::core::result::Result<Self, #krate::KeyPartError> {
                let text = #krate::key::unescape(text)?;
                match &*text {
                    #(#names => ::core::result::Result::Ok(Self::#variants),)*
                    _ => ::core::result::Result::Err(#krate::KeyPartError::new(#expected)),
                }
            }
        }

        #[automatically_derived]
        impl #krate::ToAttribute for #ident {
            fn to_attribute(&self) -> ::core::result::Result<::core::option::Option<#krate::__private::AttributeValue>, #krate::AttributeError> {
                let name = match self { #(Self::#variants => #names,)* };
                ::core::result::Result::Ok(::core::option::Option::Some(
                    #krate::__private::AttributeValue::S(::std::string::ToString::to_string(name)),
                ))
            }
        }

        #[automatically_derived]
        impl #krate::FromAttribute for #ident {
            fn from_attribute(value: #krate::__private::AttributeValue) -> ::core::result::Result<Self, #krate::AttributeError> {
                let text = <::std::string::String as #krate::FromAttribute>::from_attribute(value)?;
                match text.as_str() {
                    #(#names => ::core::result::Result::Ok(Self::#variants),)*
                    other => ::core::result::Result::Err(#krate::AttributeError::Invalid(
                        ::std::format!("`{}`: {}", other, #expected),
                    )),
                }
            }
        }
    })
}

fn newtype(input: &DeriveInput, inner: &syn::Type, krate: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    quote! {
        #[automatically_derived]
        impl #krate::KeyPart for #ident {
            #[inline]
            fn encode_key(&self, out: &mut ::std::string::String) {
                <#inner as #krate::KeyPart>::encode_key(&self.0, out)
            }

            fn decode_key(text: &str) -> ::core::result::Result<Self, #krate::KeyPartError> {
                <#inner as #krate::KeyPart>::decode_key(text).map(Self)
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
            fn from_attribute(value: #krate::__private::AttributeValue) -> ::core::result::Result<Self, #krate::AttributeError> {
                <#inner as #krate::FromAttribute>::from_attribute(value).map(Self)
            }

            fn from_missing() -> ::core::option::Option<Self> {
                <#inner as #krate::FromAttribute>::from_missing().map(Self)
            }
        }
    }
}
