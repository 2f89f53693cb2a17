//! `projection = ...` on an index, resolved: the fields an `include(..)`
//! names point at the entity's fields.

use crate::attr::{RawProjection, RawProjectionKind};
use crate::ctxt::{did_you_mean, Ctxt};
use crate::model::Field;
use proc_macro2::Span;

/// What an index holds of each item.
#[derive(Clone, Default)]
pub enum Projection {
    /// The whole item (the default).
    #[default]
    All,
    /// The key attributes.
    KeysOnly,
    /// The key attributes and these fields (by index into the entity's
    /// fields, each with the token naming it), in the order written.
    Include(Vec<(usize, Span)>),
}

/// `projection = ...` as written on an index, with its value's span.
#[derive(Clone)]
pub struct ProjectionDecl {
    pub projection: Projection,
    pub span: Span,
}

/// Resolves `raw`, reporting each field `include(..)` names that the
/// entity does not have.
pub fn build(cx: &Ctxt, raw: Option<&RawProjection>, fields: &[Field]) -> Option<ProjectionDecl> {
    use syn::ext::IdentExt;
    let raw = raw?;
    let before = cx.error_count();
    let projection = match &raw.kind {
        RawProjectionKind::All => Projection::All,
        RawProjectionKind::KeysOnly => Projection::KeysOnly,
        RawProjectionKind::Include(names) => Projection::Include(
            names
                .iter()
                .filter_map(|name| {
                    let found = fields.iter().position(|f| f.ident.unraw() == name.unraw());
                    if found.is_none() {
                        let known: Vec<String> =
                            fields.iter().map(|f| f.ident.to_string()).collect();
                        cx.error(
                            name,
                            format!(
                                "unknown field `{name}` in `include(..)`{}",
                                did_you_mean(&name.to_string(), known.iter().map(String::as_str))
                            ),
                        );
                    }
                    found.map(|f| (f, name.span()))
                })
                .collect(),
        ),
    };
    // A misspelled field has been reported; the rules on the list stay
    // quiet rather than report a list short of it.
    if cx.error_count() > before {
        return None;
    }
    Some(ProjectionDecl {
        projection,
        span: raw.span,
    })
}

impl ProjectionDecl {
    /// Whether `decl` projects whole items (`all`, or nothing written).
    pub fn is_all(decl: &Option<ProjectionDecl>) -> bool {
        decl.as_ref()
            .is_none_or(|d| matches!(d.projection, Projection::All))
    }
}
