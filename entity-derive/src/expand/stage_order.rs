//! The order of an access pattern's sort key composites, as an error that
//! names the fix.
//!
//! Composite 0's method is on stage 0 alone. Every later composite's
//! method is on every stage of its access pattern, bounded on a trait that
//! only the stage where it comes next implements; the trait's
//! `#[diagnostic::on_unimplemented]` says which composite comes first. So
//! `Task::by_project("p").priority()` with `sk(status, priority)` reads
//! "`priority` comes after `status` in the sort key of `by_project`: give
//! `.status().eq(..)` first" instead of rustc's "no method named
//! `priority`".

use crate::model::names::next_composite_trait_name;
use crate::model::{Entity, Index};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;

/// The impl of composite `k`'s methods, given by `methods` from the
/// `where` clause each of them takes: for composite 0, stage 0's impl; for
/// a later one, an impl for every stage with the ordering trait.
pub fn composite_impl(
    entity: &Entity,
    index: &Index,
    stage: &Ident,
    names: &[String],
    (k, token): (usize, Span),
    methods: impl FnOnce(&TokenStream) -> TokenStream,
) -> TokenStream {
    let bounds = super::key_bounds(entity);
    if k == 0 {
        let methods = methods(&TokenStream::new());
        return quote! {
            impl #stage<0> #bounds {
                #methods
            }
        };
    }
    let (order, guard) = next_composite(entity, index, stage, names, (k, token));
    let methods = methods(&guard);
    quote! {
        #order

        impl<const STAGE: usize> #stage<STAGE> #bounds {
            #methods
        }
    }
}

/// For composite `k` (at least 1) of `index`, whose composites are named
/// `names` in key order and declared at `token`: the trait and its one
/// impl (for stage `k`), and the `where` clause of each of the composite's
/// methods. Both are spanned on the composite in the key, where rustc's
/// notes then point.
fn next_composite(
    entity: &Entity,
    index: &Index,
    stage: &Ident,
    names: &[String],
    (k, token): (usize, Span),
) -> (TokenStream, TokenStream) {
    let vis = entity.vis;
    let (this, before) = (&names[k], &names[k - 1]);
    let mut name = next_composite_trait_name(entity, index, this);
    name.set_span(token);
    let pattern = &index.name;
    let message =
        format!("`{this}` comes after `{before}` in the sort key of `{pattern}`: give `.{before}().eq(..)` first");
    let label = format!("`{this}` is not the next composite to fix here");
    let order: Vec<String> = names.iter().map(|n| format!("`.{n}()`")).collect();
    let note = format!(
        "`{pattern}` takes its sort key composites left to right, each once: {}",
        order.join(", then ")
    );
    let doc = format!("The stage of `{pattern}` where `{this}` comes next.");
    let items = quote! {
        #[doc = #doc]
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        #vis trait #name {}

        impl #name for #stage<#k> {}
    };
    (items, quote_spanned!(token=> where Self: #name))
}
