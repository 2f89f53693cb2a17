//! The model of a `#[derive(Collection)]` union: the collection's path and
//! partition key, and its members (one entity per variant).

use crate::attr::{read_collection, PkField};
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, Type};

pub struct Member<'a> {
    pub variant: &'a syn::Variant,
    /// The member entity; `None` when the variant is not `Name(Entity)`.
    pub ty: Option<&'a Type>,
}

pub struct Union<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub generics: &'a syn::Generics,
    pub krate: TokenStream,
    pub path: Vec<String>,
    pub pk: Vec<PkField>,
    pub members: Vec<Member<'a>>,
}

impl Union<'_> {
    /// The well-formed members, each entity once.
    pub fn entities(&self) -> Vec<(&Ident, &Type)> {
        let mut out: Vec<(&Ident, &Type)> = Vec::new();
        for member in &self.members {
            let Some(ty) = member.ty else { continue };
            if !out.iter().any(|(_, seen)| same_type(seen, ty)) {
                out.push((&member.variant.ident, ty));
            }
        }
        out
    }
}

pub fn same_type(a: &Type, b: &Type) -> bool {
    quote!(#a).to_string() == quote!(#b).to_string()
}

/// A variant `Name(Entity)`, or a malformed one without a member type.
fn member(variant: &syn::Variant) -> Member<'_> {
    let ty = match &variant.fields {
        syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => Some(&fields.unnamed[0].ty),
        _ => None,
    };
    Member { variant, ty }
}

pub fn build<'a>(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Union<'a>> {
    let syn::Data::Enum(data) = &input.data else {
        cx.error(&input.ident, "`#[derive(Collection)]` goes on an enum whose variants are the member entities: `enum TenantMembers { Employee(Employee), Task(Task) }`");
        return None;
    };
    let raw = read_collection(cx, &input.attrs);
    let Some(attr) = &raw.written else {
        cx.error(&input.ident, "add `#[collection(name = \"...\", pk(field: Type, ...))]`: the collection's name and its partition key composites");
        return None;
    };
    let Some(path) = raw.path else {
        // A malformed `name` has been reported already.
        if !raw.name_written && !raw.had_errors {
            cx.error(attr, "add the collection's `name = \"...\"`");
        }
        return None;
    };
    let Some(pk) = raw.pk else {
        if !raw.had_errors {
            cx.error(attr, "add the collection's partition key composites, as the members declare them: `pk(tenant_id: String)`");
        }
        return None;
    };
    let members = data.variants.iter().map(member).collect();
    Some(Union {
        ident: &input.ident,
        vis: &input.vis,
        generics: &input.generics,
        krate: raw
            .krate
            .map_or_else(crate::model::crate_path, |p| quote!(#p)),
        path,
        pk,
        members,
    })
}
