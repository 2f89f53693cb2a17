//! Field handles for conditions, filters and updates (`Task::fields()`),
//! their roles, and the group setters of index key composites.
//!
//! A table key composite has role `TableKeyComposite` and no setter at all;
//! so have the fields the client writes (`Managed`: `created_at`,
//! `updated_at`, `version`) and unique constraints' fields (`UniqueField`,
//! changed only by `put`/`upsert`, which move the sentinel). Other index key
//! composites that share an index key form a group (the connected
//! fields across all secondary index keys); each group gets a marker role,
//! named after its setter (`TaskSetPriorityStatus`), that updates refuse
//! with an error naming it, and one setter, `Task::set_priority_status(..)`,
//! that sets the fields and recomposes every index key they are part of.

use crate::model::names::{
    field_name, fixed_fields, groups, key_names, marker_name, setter_name, table_key_fields,
};
use crate::model::{Entity, IndexKind};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

pub fn expand(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let vis = entity.vis;
    let fields_ty = format_ident!("{}Fields", ident);
    let groups = groups(entity);
    let bounds = super::key_bounds(entity);
    let roles = roles(entity, &groups);
    let markers: TokenStream = groups.iter().map(|g| marker_struct(entity, g)).collect();
    let setters: TokenStream = groups
        .iter()
        .filter(|g| !entity.omit_setters.contains(&g[0]))
        .map(|g| group_setter(entity, g, &setter_name(entity, g)))
        .collect();
    let handles = entity.fields.iter().zip(&roles).enumerate().map(|(f, (field, role))| {
        let (name, attribute) = (field.ident, &field.attribute);
        let ty = field.ty;
        let (ty, doc) = match super::lifecycle::handle_type(entity, f) {
            Some(stored) => (stored, format!("`{name}`, the time to live, stored as attribute `{attribute}` in epoch seconds.")),
            None => (quote!(#ty), format!("`{name}`, stored as attribute `{attribute}`.")),
        };
        quote! {
            #[doc = #doc]
            pub #name: #krate::expr::Attr<#ident, #ty, #role>
        }
    });
    let inits = entity.fields.iter().map(|field| {
        let (name, attribute) = (field.ident, &field.attribute);
        quote!(#name: #krate::__private::attr(#attribute))
    });
    let doc_fields = format!("Handles on `{ident}`'s fields, for conditions, filters and updates.");
    quote! {
        #[doc = #doc_fields]
        #[derive(Debug, Clone, Copy)]
        #vis struct #fields_ty {
            #(#handles,)*
        }

        #markers

        #[automatically_derived]
        impl #ident #bounds {
            #[doc = #doc_fields]
            pub const fn fields() -> #fields_ty {
                #fields_ty { #(#inits,)* }
            }

            #setters
        }
    }
}

/// Each field's update role: `Plain`, `TableKeyComposite`, `Managed`,
/// `UniqueField` (the first that applies, in that order from the last), or
/// its group's marker.
fn roles(entity: &Entity, groups: &[Vec<usize>]) -> Vec<TokenStream> {
    let krate = &entity.krate;
    let mut roles: Vec<TokenStream> = entity
        .fields
        .iter()
        .map(|_| quote!(#krate::expr::Plain))
        .collect();
    for f in entity.unique_fields() {
        roles[f] = quote!(#krate::expr::UniqueField);
    }
    let ttl_after = super::lifecycle::client_written(entity);
    for f in entity.client_written_fields().into_iter().chain(ttl_after) {
        roles[f] = quote!(#krate::expr::Managed);
    }
    for f in table_key_fields(entity) {
        roles[f] = quote!(#krate::expr::TableKeyComposite);
    }
    for group in groups {
        let marker = marker_name(entity, group);
        for &f in group {
            roles[f] = quote!(#marker);
        }
    }
    roles
}

/// `TaskSetPriorityStatus`: a group's role, whose doc names its setter.
fn marker_struct(entity: &Entity, group: &[usize]) -> TokenStream {
    let ident = entity.ident;
    let vis = entity.vis;
    let marker = marker_name(entity, group);
    let setter = setter_name(entity, group);
    let list = backticked(entity, group);
    let doc = format!(
        "The update role of {list}: index key composites that change together, with [`{ident}::{setter}`]."
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy)]
        #vis struct #marker;
    }
}

/// `` `priority`, `status` ``: fields for docs.
fn backticked(entity: &Entity, fields: &[usize]) -> String {
    fields
        .iter()
        .map(|&f| format!("`{}`", field_name(entity, f)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn group_setter(entity: &Entity, group: &[usize], setter: &Ident) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let Recomposed {
        keys,
        attributes,
        guards,
    } = recomposed_keys(entity, group);
    // The same argument types as the key constructors (`&str` or `String`
    // for a `String`).
    let params = group.iter().chain(&guards).map(|&f| {
        let field = &entity.fields[f];
        let (name, ty) = (field.ident, field.ty);
        quote!(#name: impl #krate::KeyArg<#ty>)
    });
    let steps = quote!(#krate::__private::IndexChangeSteps);
    let sets = group.iter().map(|&f| {
        let field = &entity.fields[f];
        let (name, attribute, ty) = (field.ident, &field.attribute, field.ty);
        quote!(let __entity_change = #steps::field::<#ty>(__entity_change, #attribute, &#name);)
    });
    let guard_calls = guards.iter().map(|&f| {
        let field = &entity.fields[f];
        let (name, attribute, ty) = (field.ident, &field.attribute, field.ty);
        quote!(let __entity_change = #steps::guard::<#ty>(__entity_change, #attribute, &#name);)
    });
    let doc = setter_doc(entity, group, &attributes, &guards);
    quote! {
        #[doc = #doc]
        pub fn #setter(#(#params),*) -> #krate::expr::IndexChange<#ident> {
            let __entity_change: #krate::expr::IndexChange<Self> = #krate::__private::IndexChangeSteps::start();
            #(#sets)*
            #keys
            #(#guard_calls)*
            __entity_change
        }
    }
}

/// The index keys a group setter recomposes.
struct Recomposed<'e> {
    /// The steps that recompose them, each key attribute once.
    keys: TokenStream,
    /// Their attributes, for the doc.
    attributes: Vec<&'e str>,
    /// The fixed fields (table key composites, managed and unique fields)
    /// they also hold, in field order: the setter takes them and guards the
    /// update on them.
    guards: Vec<usize>,
}

fn recomposed_keys<'e>(entity: &'e Entity, group: &[usize]) -> Recomposed<'e> {
    let krate = &entity.krate;
    let fixed = fixed_fields(entity);
    let mut out = Recomposed {
        keys: TokenStream::new(),
        attributes: Vec::new(),
        guards: Vec::new(),
    };
    for index in &entity.indexes {
        for (which, key) in index.keys() {
            if index.kind == IndexKind::Local && which == "pk" {
                continue;
            }
            if !key.composites.iter().any(|c| group.contains(&c.field))
                || out.attributes.contains(&key.attribute.as_str())
            {
                continue;
            }
            out.attributes.push(&key.attribute);
            for c in &key.composites {
                if fixed.contains(&c.field) && !out.guards.contains(&c.field) {
                    out.guards.push(c.field);
                }
            }
            let compose_of = key_names(index, which).compose_of;
            let args = key.composites.iter().map(|c| {
                let name = entity.fields[c.field].ident;
                quote!(#krate::__private::ArgRef(&#name))
            });
            let attribute = &key.attribute;
            out.keys.extend(quote!(let __entity_change = #krate::__private::IndexChangeSteps::key(__entity_change, #attribute, Self::#compose_of(#(#args),*));));
        }
    }
    out.guards.sort_unstable();
    out
}

fn setter_doc(entity: &Entity, group: &[usize], attributes: &[&str], guards: &[usize]) -> String {
    let recomposed: Vec<String> = attributes.iter().map(|a| format!("`{a}`")).collect();
    let mut doc = format!(
        "Sets {} together and recomposes the index keys {}.",
        backticked(entity, group),
        recomposed.join(", ")
    );
    if !guards.is_empty() {
        doc.push_str(&format!(
            " Those keys also hold {}, which an update does not change: the update is conditioned on the item holding the values given.",
            backticked(entity, guards)
        ));
    }
    doc
}
