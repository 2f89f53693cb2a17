//! Typed query accessors: `Task::primary(..)`, `Task::by_project(..)`.
//!
//! Each index gets a stage type `TaskByProjectQuery<const STAGE: usize>`,
//! an alias of `TaskQueries<TaskByProject, STAGE>`: one struct and one set
//! of common methods per entity, told apart by the access pattern's marker
//! type (`TaskByProject`), so that rustc's messages name the pattern.
//! Stage `k` has fixed the first `k` sort key composites; composite `k`'s
//! method, `priority()`, is on it: a `sort_key::Composite` whose `eq(v)`
//! fixes it and moves to stage `k + 1`, and whose ranges end in a `Query`.
//! A composite cannot be skipped: called on another stage, its method fails
//! with an error naming the composite to fix first (`stage_order`).

use super::{key_names, key_params};
use crate::model::names::{access_pattern_name, stage_type_name};
use crate::model::{Entity, Index, IndexKind, Key};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

/// The stage types and their methods, and the accessor functions (for the
/// entity's inherent impl).
pub fn expand(entity: &Entity) -> (TokenStream, TokenStream) {
    let mut items = queries_struct(entity);
    let mut accessors = TokenStream::new();
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        let (stages, accessor) = index_accessor(entity, index);
        items.extend(stages);
        accessors.extend(accessor);
    }
    (items, accessors)
}

/// `TaskQueries<INDEX, STAGE>`, the stage type every accessor shares.
pub fn queries_name(entity: &Entity) -> Ident {
    quote::format_ident!("{}Queries", entity.ident)
}

fn index_accessor(entity: &Entity, index: &Index) -> (TokenStream, TokenStream) {
    let stage = stage_type_name(entity, index);
    let alias = stage_alias(entity, index, &stage);
    if let Some(multi) = &index.multi_attribute {
        let (stages, accessor) = super::multi_attribute::accessor(entity, index, multi, &stage);
        return (quote!(#alias #stages), accessor);
    }
    let accessor = accessor_fn(entity, index, &stage);
    let stages = index
        .sk
        .as_ref()
        .filter(|_| !entity.omit_stages.contains(&index.name.to_string()))
        .map(|sk| stage_methods(entity, &stage, index, sk))
        .unwrap_or_default();
    (quote!(#alias #stages), accessor)
}

/// The access pattern's marker, `TaskByProject`, and its stage type
/// `TaskByProjectQuery<STAGE>`, an alias of `TaskQueries<TaskByProject,
/// STAGE>`.
fn stage_alias(entity: &Entity, index: &Index, stage: &Ident) -> TokenStream {
    let ident = entity.ident;
    let vis = entity.vis;
    let queries = queries_name(entity);
    let marker = access_pattern_name(entity, index);
    let accessor = &index.name;
    let doc_marker = format!("`{ident}::{accessor}`, as the `INDEX` of [`{queries}`].");
    let doc_alias = format!("The stages of `{ident}::{accessor}` queries ([`{queries}`]).");
    // A projected index's queries read its view, not the entity.
    let output =
        (!crate::model::projection::ProjectionDecl::is_all(&index.projection)).then(|| {
            let view = super::view::output(entity, index);
            quote!(, #view)
        });
    quote! {
        #[doc = #doc_marker]
        #vis enum #marker {}

        #[doc = #doc_alias]
        #vis type #stage<const STAGE: usize> = #queries<#marker, STAGE #output>;
    }
}

/// The struct behind every accessor's stages, and what every stage can do:
/// order, limit, and end the query.
fn queries_struct(entity: &Entity) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let vis = entity.vis;
    let queries = queries_name(entity);
    let bounds = super::key_bounds(entity);
    let doc = format!(
        "A query on `{ident}` being narrowed: `INDEX` is the access pattern (`{ident}::primary` is [`{ident}Primary`], `{ident}::by_x` is `{ident}ByX`), `STAGE` how many sort key composites are fixed. Converts into a [`Query`]({}::Query).",
        quote!(#krate).to_string().replace(' ', "")
    );
    quote! {
        #[doc = #doc]
        #[must_use = "a query does nothing until it is sent"]
        #vis struct #queries<INDEX, const STAGE: usize, OUT = #ident> {
            // Short: every stage method names it.
            q: #krate::__private::KeyQuery<OUT, INDEX>,
        }

        #[automatically_derived]
        impl<INDEX, const STAGE: usize, OUT> ::core::fmt::Debug for #queries<INDEX, STAGE, OUT> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&self.q, f)
            }
        }

        impl<INDEX, const STAGE: usize, OUT> #queries<INDEX, STAGE, OUT> #bounds {
            /// Largest sort key first.
            pub fn descending(self) -> Self { Self { q: self.q.ascending(false) } }

            /// Smallest sort key first (the default).
            pub fn ascending(self) -> Self { Self { q: self.q.ascending(true) } }

            /// At most `limit` items in all, across requests.
            pub fn limit(self, limit: u32) -> Self { Self { q: self.q.limit(limit) } }

            /// The query: an exact sort key when every composite is fixed, a
            /// `begins_with` on the fixed prefix otherwise.
            pub fn build(self) -> #krate::Query<OUT> {
                self.q.finish()
            }
        }

        #[automatically_derived]
        impl<INDEX, const STAGE: usize, OUT> #krate::sort_key::Stage for #queries<INDEX, STAGE, OUT> {
            type Out = OUT;
            type Index = INDEX;
            fn from_key_query(q: #krate::__private::KeyQuery<OUT, INDEX>) -> Self {
                Self { q }
            }
            fn into_key_query(self) -> #krate::__private::KeyQuery<OUT, INDEX> {
                self.q
            }
        }
    }
}

/// `Task::by_project(..)`: the partition, at stage 0.
fn accessor_fn(entity: &Entity, index: &Index, stage: &Ident) -> TokenStream {
    let krate = &entity.krate;
    let accessor = &index.name;
    let pk_index = if index.kind == IndexKind::Local {
        &entity.primary
    } else {
        index
    };
    let pk_of = match pk_index.pk.sharding() {
        Some(_) => super::keys::base_name(pk_index, "pk"),
        None => key_names(pk_index, "pk").compose_of,
    };
    let sharded = pk_index.pk.sharding().map(|(shards, count)| {
        let spec = super::keys::shard_spec(entity, shards, count);
        let sort = match &index.sk {
            Some(sk) => {
                let attribute = &sk.attribute;
                quote!(::core::option::Option::Some(#attribute))
            }
            None => quote!(::core::option::Option::None),
        };
        let table_pk = &entity.primary.pk.attribute;
        let table_sk = match &entity.primary.sk {
            Some(sk) => {
                let attribute = &sk.attribute;
                quote!(::core::option::Option::Some(#attribute))
            }
            None => quote!(::core::option::Option::None),
        };
        quote! {
            let query = query.sharded(#krate::Sharding {
                spec: #spec,
                sort_attribute: #sort,
                table_keys: (#table_pk, #table_sk),
            });
        }
    });
    let pk_params = key_params(entity, &index.pk);
    let pk_args = index
        .pk
        .composites
        .iter()
        .map(|c| entity.fields[c.field].ident);
    let physical = match &index.physical {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    let pk_attribute = &index.pk.attribute;
    let (sk_attribute, start, complete) = sort_key_start(index);
    let physical_text = index
        .physical
        .as_ref()
        .map_or("the table".to_owned(), |p| format!("index `{}`", p.value()));
    let mut doc_accessor = format!(
        "Queries {physical_text} by `{}`, the partition key. Narrow it by sort key composites, left to right.",
        index.pk.template(&entity.fields)
    );
    if let Some((_, count)) = pk_index.pk.sharding() {
        doc_accessor.push_str(&format!(" The partition is sharded: the client reads its {count} shards concurrently and merges them in sort key order."));
    }
    let pk = quote!(Self::#pk_of(#(#pk_args),*));
    let body = match sharded {
        Some(sharded) => quote! {
            let query = #krate::Query::new(#physical, #pk_attribute, #pk);
            #sharded
            #krate::__private::stage_of(query, #sk_attribute, #start, #complete)
        },
        None => {
            let index = index
                .physical
                .as_ref()
                .map(syn::LitStr::value)
                .unwrap_or_default();
            quote!(#krate::__private::stage(#index, #pk_attribute, #pk, #sk_attribute, #start, #complete))
        }
    };
    quote! {
        #[doc = #doc_accessor]
        pub fn #accessor(#(#pk_params),*) -> #stage<0> {
            #body
        }
    }
}

/// The sort key attribute (empty when there is none), the text before its
/// first composite, and whether it has no composites (so stage 0 already
/// knows the whole key).
fn sort_key_start(index: &Index) -> (String, String, bool) {
    match &index.sk {
        Some(sk) => (
            sk.attribute.clone(),
            sk.text_before(0),
            sk.composites.is_empty(),
        ),
        None => (String::new(), String::new(), false),
    }
}

/// One impl per sort key composite: its methods.
fn stage_methods(entity: &Entity, stage: &Ident, index: &Index, sk: &Key) -> TokenStream {
    let names: Vec<String> = sk
        .composites
        .iter()
        .map(|c| entity.fields[c.field].ident.to_string())
        .collect();
    let n = sk.composites.len();
    let mut out: TokenStream = (0..n)
        .map(|k| composite_stage(entity, stage, index, sk, &names, k))
        .collect();
    if n >= 2 && (0..n).all(|k| ranged(sk, k)) {
        out.extend(compose_sort_key(entity, index, sk));
    }
    out
}

/// Composite `k`'s method, named after it: a [`Composite`] to fix it or end
/// the query on it. Composite 0's is stage 0's, with the whole sort key's
/// `sk()` on a key with several composites; a later one's is on every
/// stage, bounded on its being next (`stage_order`).
///
/// [`Composite`]: entity_core::sort_key::Composite
fn composite_stage(
    entity: &Entity,
    stage: &Ident,
    index: &Index,
    sk: &Key,
    names: &[String],
    k: usize,
) -> TokenStream {
    let n = sk.composites.len();
    let at = (k, sk.composites[k].token);
    super::stage_order::composite_impl(entity, index, stage, names, at, |guard| {
        let composite = composite_method(entity, stage, sk, k, guard);
        let whole = (k == 0 && n >= 2 && (0..n).all(|k| ranged(sk, k)))
            .then(|| whole_key_method(entity, stage));
        quote!(#composite #whole)
    })
}

/// `priority()`, the condition on composite `k`; `guard` is the `where`
/// clause that holds on the composite's stage.
fn composite_method(
    entity: &Entity,
    stage: &Ident,
    sk: &Key,
    k: usize,
    guard: &TokenStream,
) -> TokenStream {
    let krate = &entity.krate;
    let field = &entity.fields[sk.composites[k].field];
    let (name, ty) = (field.ident, field.key_ty);
    let n = sk.composites.len();
    let then = sk.text_before(k + 1);
    let complete = k + 1 == n;
    let last = complete && then.is_empty();
    let next = k + 1;
    let kind = match (sk.number.is_some(), ranged(sk, k)) {
        (true, _) => Some(quote!(, #krate::sort_key::Numeric)),
        (false, false) => Some(quote!(, #krate::sort_key::Unordered)),
        (false, true) => None,
    };
    let doc = format!(
        "`{name}`, the sort key composite {}/{n}: `.eq(v)` fixes it and moves on; a range ends the query.",
        k + 1
    );
    let body = if plain(sk, k) {
        quote!(#krate::__private::composite(self.q, #then, #complete, #last))
    } else {
        // Hygienic: a constant of the caller's named `value` or `out` would
        // be read as a pattern.
        let (arg, out) = (
            Ident::new("__entity_value", Span::mixed_site()),
            Ident::new("__entity_out", Span::mixed_site()),
        );
        let (part, value) = super::keys::composite_arg(entity, sk, k, quote!(#arg));
        let number = match &sk.number {
            Some(_) => {
                let attribute = &sk.attribute;
                quote!(::core::option::Option::Some(#attribute))
            }
            None => quote!(::core::option::Option::None),
        };
        quote! {
            #krate::__private::encoded_composite(self.q, #then, #complete, #last, #number, ::core::option::Option::Some(|#arg, #out| {
                let #arg = #krate::__private::ArgRef(#arg);
                #krate::KeyArg::<#part>::encode_arg(&#value, #out)
            }))
        }
    };
    quote! {
        #[doc = #doc]
        pub fn #name(self) -> #krate::sort_key::Composite<#stage<#next>, #ty #kind> #guard {
            #body
        }
    }
}

/// Whether composite `k`'s text is its value's, with no bucket, padding
/// or case folding, in a text key.
fn plain(sk: &Key, k: usize) -> bool {
    let composite = &sk.composites[k];
    sk.number.is_none()
        && sk.value_casing.is_none()
        && composite.bucket.is_none()
        && !composite.unpadded
}

/// Whether ranges on composite `k` are exact, so they are offered: its key
/// text sorts as its values (not plain decimal in a string key), and what
/// follows it is `#` or nothing (a value followed by other text, such as
/// `@` in `{id}@{version}`, does not sort as the tuple of values).
fn ranged(sk: &Key, k: usize) -> bool {
    if sk.number.is_some() {
        return true; // compared as a number by DynamoDB
    }
    let next = sk.text_before(k + 1);
    !sk.composites[k].unpadded && (next.is_empty() || next.starts_with('#'))
}

/// `sk()`, the whole sort key, compared with tuples of every composite.
fn whole_key_method(entity: &Entity, stage: &Ident) -> TokenStream {
    let krate = &entity.krate;
    quote! {
        /// The whole sort key, compared with a tuple of every composite's value: `.sk().gte((a, b))`.
        pub fn sk(self) -> #krate::sort_key::SortKey<#stage<0>> {
            #krate::__private::sort_key(self.q)
        }
    }
}

/// How the marker of an access pattern with several sort key composites
/// composes its whole sort key from a tuple (`ComposeSortKey`), for `sk()`.
fn compose_sort_key(entity: &Entity, index: &Index, sk: &Key) -> TokenStream {
    let krate = &entity.krate;
    let ident = entity.ident;
    let marker = access_pattern_name(entity, index);
    let bounds = super::key_bounds(entity);
    let compose_of = key_names(index, "sk").compose_of;
    let n = sk.composites.len();
    // Named so that no type of the caller's is shadowed.
    let args: Vec<Ident> = (0..n).map(|i| quote::format_ident!("__K{i}")).collect();
    let types = sk.composites.iter().map(|c| entity.fields[c.field].key_ty);
    let fields = (0..n).map(syn::Index::from);
    let where_clause = match bounds.is_empty() {
        true => quote!(where),
        false => quote!(#bounds,),
    };
    quote! {
        #[automatically_derived]
        impl<#(#args),*> #krate::sort_key::ComposeSortKey<(#(#args,)*)> for #marker #where_clause #(#args: #krate::KeyArg<#types>),* {
            fn compose(sk: (#(#args,)*)) -> ::std::string::String {
                #ident::#compose_of(#(sk.#fields),*)
            }
        }
    }
}
