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
//!
//! Sparse indexes: all composites of an index with an `Option` composite
//! form one group, whose setter takes each optional one as
//! `impl OptionalKeyArg<T>` and, given `None`, removes the field and every
//! key of the index. A composite of indexes that are all
//! `policy = "sparse"` has role `SparseComposite<Entity, FIELD>` instead of
//! the marker: it can be set alone, and the update removes those indexes'
//! keys (`SparseKeys` lists them).

use crate::attr::IndexPolicy;
use crate::model::names::{
    field_name, fixed_fields, groups, key_names, marker_name, setter_name, table_key_fields,
};
use crate::model::Entity;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// The field handles, their roles and sparse keys, and `fields()` with the
/// group setters (for the entity's inherent impl).
pub fn expand(entity: &Entity) -> (TokenStream, TokenStream) {
    let krate = &entity.krate;
    let ident = entity.ident;
    let vis = entity.vis;
    let fields_ty = format_ident!("{}Fields", ident);
    let groups = groups(entity);
    let bounds = super::key_bounds(entity);
    let roles = roles(entity, &groups);
    let markers: TokenStream = groups.iter().map(|g| marker_struct(entity, g)).collect();
    let sparse_keys = sparse_keys_impl(entity, &groups);
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
        let role = (!role.is_empty()).then(|| quote!(, #role));
        quote! {
            #[doc = #doc]
            pub #name: #krate::expr::Attr<#ident, #ty #role>
        }
    });
    let inits = entity.fields.iter().map(|field| {
        let (name, attribute) = (field.ident, &field.attribute);
        quote!(#name: #krate::__private::attr(#attribute))
    });
    let doc_fields = format!("Handles on `{ident}`'s fields, for conditions, filters and updates.");
    let fields_name = fields_ty.to_string();
    let items = quote! {
        #[doc = #doc_fields]
        #vis struct #fields_ty {
            #(#handles,)*
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #fields_ty #bounds {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #krate::__private::debug_fields(f, #fields_name, <#ident as #krate::Entity>::MODEL)
            }
        }

        // Handles are `Copy` whatever their types: no per-field bound to
        // assert, as `derive(Clone)` would.
        #[automatically_derived]
        impl ::core::clone::Clone for #fields_ty {
            #[inline]
            fn clone(&self) -> Self {
                *self
            }
        }

        impl ::core::marker::Copy for #fields_ty {}

        #markers

        #sparse_keys

    };
    let fns = quote! {
        #[doc = #doc_fields]
        #[inline]
        pub const fn fields() -> #fields_ty {
            #fields_ty { #(#inits,)* }
        }

        #setters
    };
    (items, fns)
}

/// Each field's update role: `Plain`, `TableKeyComposite`, `Managed`,
/// `UniqueField` (the first that applies, in that order from the last), or
/// its group's marker.
fn roles(entity: &Entity, groups: &[Vec<usize>]) -> Vec<TokenStream> {
    let krate = &entity.krate;
    let mut roles: Vec<TokenStream> = entity
        .fields
        .iter()
        .map(|_| TokenStream::new()) // `Plain`, the handle's default
        .collect();
    for (f, field) in entity.fields.iter().enumerate() {
        if let Some(compress) = field.compression() {
            let min = match compress.min {
                Some(min) => {
                    let min = proc_macro2::Literal::usize_unsuffixed(min as usize);
                    quote!(#min)
                }
                None => quote!({ #krate::compress::DEFAULT_MIN }),
            };
            roles[f] = quote!(#krate::expr::Compressed<#min>);
        }
        if field.encrypt.is_some() {
            roles[f] = quote!(#krate::expr::Encrypted);
        } else if field.sign.is_some() && roles[f].is_empty() {
            roles[f] = quote!(#krate::expr::Signed);
        }
    }
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
    let ident = entity.ident;
    for group in groups {
        let marker = marker_name(entity, group);
        for &f in group {
            roles[f] = if sparse_keys(entity, f).is_some() {
                let f = proc_macro2::Literal::usize_unsuffixed(f);
                quote!(#krate::expr::SparseComposite<#ident, #f>)
            } else {
                quote!(#marker)
            };
        }
    }
    roles
}

/// The key attributes of the indexes `f` is a composite of, when they are
/// all `policy = "sparse"`: then `f` can be set alone, and doing so removes
/// them. `None` when one of them keeps the default `preserve` policy.
fn sparse_keys<'e>(entity: &'e Entity, f: usize) -> Option<Vec<&'e str>> {
    let indexes: Vec<_> = entity
        .indexes
        .iter()
        .filter(|index| index.composite_fields().contains(&f))
        .collect();
    if indexes.is_empty() || indexes.iter().any(|i| i.policy != IndexPolicy::Sparse) {
        return None;
    }
    let mut keys: Vec<&str> = Vec::new();
    for (_, key) in indexes.iter().flat_map(|index| index.own_keys()) {
        if !keys.contains(&key.attribute.as_str()) {
            keys.push(&key.attribute);
        }
    }
    Some(keys)
}

/// `SparseKeys`: the keys each `SparseComposite` field removes when set
/// alone.
fn sparse_keys_impl(entity: &Entity, groups: &[Vec<usize>]) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let arms: Vec<TokenStream> = groups
        .iter()
        .flatten()
        .filter_map(|&f| {
            let keys = sparse_keys(entity, f)?;
            Some(quote!(#f => &[#(#keys),*],))
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    let bounds = super::key_bounds(entity);
    quote! {
        #[automatically_derived]
        impl #krate::expr::SparseKeys for #ident #bounds {
            fn sparse_index_keys(field: ::core::primitive::usize) -> &'static [&'static str] {
                match field {
                    #(#arms)*
                    _ => &[],
                }
            }
        }
    }
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
    let krate = &entity.krate;
    quote! {
        #[doc = #doc]
        #vis enum #marker {}

        impl #krate::expr::Comparable for #marker {}
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
        optional,
    } = recomposed_keys(entity, group);
    // The same argument types as the key constructors (`&str` or `String`
    // for a `String`); an optional composite also takes `None`.
    let params = group.iter().chain(&guards).map(|&f| {
        let field = &entity.fields[f];
        let (name, ty) = (field.ident, field.key_ty);
        if field.optional {
            quote!(#name: impl #krate::key::OptionalKeyArg<#ty>)
        } else {
            quote!(#name: impl #krate::KeyArg<#ty>)
        }
    });
    let unwraps = group.iter().chain(&guards).filter_map(|&f| {
        let field = &entity.fields[f];
        let (name, ty) = (field.ident, field.key_ty);
        field
            .optional
            .then(|| quote!(let #name = #krate::key::OptionalKeyArg::<#ty>::into_key_arg(#name);))
    });
    let change = change_local();
    let step = |f: usize, plain: &str, optional: &str| {
        let field = &entity.fields[f];
        let (name, attribute, ty) = (field.ident, &field.attribute, field.key_ty);
        let step = Ident::new(
            if field.optional { optional } else { plain },
            Span::call_site(),
        );
        quote!(let #change = #change.#step::<#ty>(#attribute, &#name);)
    };
    let sets = group
        .iter()
        .map(|&f| step(f, "__field", "__optional_field"));
    let guard_calls = guards
        .iter()
        .map(|&f| step(f, "__guard", "__optional_guard"));
    let doc = setter_doc(entity, group, &attributes, &guards, &optional);
    quote! {
        #[doc = #doc]
        pub fn #setter(#(#params),*) -> #krate::expr::IndexChange<#ident> {
            #(#unwraps)*
            let #change: #krate::expr::IndexChange<Self> = #krate::expr::IndexChange::__start();
            #(#sets)*
            #keys
            #(#guard_calls)*
            #change
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
    /// The optional composites of the sparse indexes among them, for the
    /// doc.
    optional: Vec<usize>,
}

/// The keys of every index the group is a composite of: those holding a
/// group field, or all of a sparse index's, since whether the item is in a
/// sparse index depends on all of its composites (while one is `None`, the
/// setter removes every key of the index).
fn recomposed_keys<'e>(entity: &'e Entity, group: &[usize]) -> Recomposed<'e> {
    let change = change_local();
    let fixed = fixed_fields(entity);
    let mut out = Recomposed {
        keys: TokenStream::new(),
        attributes: Vec::new(),
        guards: Vec::new(),
        optional: Vec::new(),
    };
    for index in &entity.indexes {
        let optional = index.optional_fields(&entity.fields);
        let holds_group =
            |key: &crate::model::Key| key.composites.iter().any(|c| group.contains(&c.field));
        if optional.is_empty() || !index.own_keys().any(|(_, key)| holds_group(key)) {
            for (which, key) in index.own_keys() {
                if holds_group(key) {
                    let step = recompose(entity, index, which, key, &fixed, &mut out);
                    out.keys.extend(step);
                }
            }
            continue;
        }
        let mut sets = TokenStream::new();
        let mut removes = TokenStream::new();
        for (which, key) in index.own_keys() {
            let attribute = &key.attribute;
            removes.extend(quote!(let #change = #change.__remove_key(#attribute);));
            sets.extend(recompose(entity, index, which, key, &fixed, &mut out));
        }
        for &f in &optional {
            if !out.optional.contains(&f) {
                out.optional.push(f);
            }
        }
        out.keys
            .extend(present_locals(entity, &optional, sets, removes));
    }
    out.guards.sort_unstable();
    out
}

/// `present` when every optional local in `fields` (the setter's
/// arguments) is `Some`, each bound to `__entity_some_<field>`, else
/// `absent`; both are steps on the change being built.
fn present_locals(
    entity: &Entity,
    fields: &[usize],
    present: TokenStream,
    absent: TokenStream,
) -> TokenStream {
    let names = fields.iter().map(|&f| entity.fields[f].ident);
    let locals = fields.iter().map(|&f| format_ident!("__entity_some_{}", f));
    let change = change_local();
    quote! {
        let #change = match (#(&#names,)*) {
            (#(::core::option::Option::Some(#locals),)*) => { #present #change }
            #[allow(unreachable_patterns)]
            _ => { #absent #change }
        };
    }
}

/// The step that recomposes one key from the setter's arguments (each key
/// attribute once), noting the fixed fields it holds as guards.
fn recompose<'e>(
    entity: &'e Entity,
    index: &'e crate::model::Index,
    which: &str,
    key: &'e crate::model::Key,
    fixed: &[usize],
    out: &mut Recomposed<'e>,
) -> TokenStream {
    let krate = &entity.krate;
    let change = change_local();
    if out.attributes.contains(&key.attribute.as_str()) {
        return TokenStream::new();
    }
    out.attributes.push(&key.attribute);
    for c in &key.composites {
        if fixed.contains(&c.field) && !out.guards.contains(&c.field) {
            out.guards.push(c.field);
        }
    }
    let compose_of = key_names(index, which).compose_of;
    let args = key.composites.iter().map(|c| {
        let field = &entity.fields[c.field];
        if field.optional {
            let local = format_ident!("__entity_some_{}", c.field);
            quote!(#krate::__private::ArgRef(#local))
        } else {
            let name = field.ident;
            quote!(#krate::__private::ArgRef(&#name))
        }
    });
    let attribute = &key.attribute;
    if let Some((shards, count)) = key.sharding() {
        // The shard comes from the table key of the item updated, which the
        // client knows when it sends the update.
        let base = super::keys::base_name(index, which);
        let spec = super::keys::shard_spec(entity, shards, count);
        return quote!(let #change = #change.__shard_key(#attribute, Self::#base(#(#args),*), #spec););
    }
    quote!(let #change = #change.__key(#attribute, Self::#compose_of(#(#args),*));)
}

/// The setter's local holding the change being built: hygienic, so no
/// parameter (named after a field) can shadow it.
fn change_local() -> Ident {
    Ident::new("__entity_change", Span::mixed_site())
}

fn setter_doc(
    entity: &Entity,
    group: &[usize],
    attributes: &[&str],
    guards: &[usize],
    optional: &[usize],
) -> String {
    let recomposed: Vec<String> = attributes.iter().map(|a| format!("`{a}`")).collect();
    let mut doc = format!(
        "Sets {} together and recomposes the index keys {}.",
        backticked(entity, group),
        recomposed.join(", ")
    );
    if !optional.is_empty() {
        doc.push_str(&format!(
            " `None` for {} removes that field and the keys of its sparse index (the item leaves the index); `Some` puts them back.",
            backticked(entity, optional).replace(", ", " or ")
        ));
    }
    if !guards.is_empty() {
        doc.push_str(&format!(
            " Those keys also hold {}, which an update does not change: the update is conditioned on the item holding the values given.",
            backticked(entity, guards)
        ));
    }
    doc
}
