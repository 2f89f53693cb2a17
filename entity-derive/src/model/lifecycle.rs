//! The lifecycle of an entity's items, resolved: the `ttl` and `deleted_at`
//! fields (roles on `Field::lifecycle`), `soft_delete` and `history`.

use super::managed::option_inner;
use super::Entity;
use crate::attr::{LifecycleRole, RawHistory, RawSoftDelete};
use proc_macro2::Span;

/// `#[entity(soft_delete(...))]`.
pub struct SoftDelete {
    pub keep_unique: bool,
    /// Seconds, with the literal.
    pub expire_after: Option<(u64, Span)>,
}

/// `#[entity(history(...))]`.
pub struct History {
    /// The `history` token.
    pub span: Span,
    /// Between the live item's sort key and the version (default `@`).
    pub separator: String,
    /// The `separator = "..."` literal, else the `history` token.
    pub separator_span: Span,
    pub keep: Option<(u32, Span)>,
    pub expire_after: Option<(u64, Span)>,
}

/// The `@` of `<sk>@<version>`, when `history` names no separator.
pub const DEFAULT_SEPARATOR: &str = "@";

pub fn soft_delete(raw: &Option<RawSoftDelete>) -> Option<SoftDelete> {
    raw.as_ref().map(|raw| SoftDelete {
        keep_unique: raw.keep_unique.is_some(),
        expire_after: raw.expire_after,
    })
}

pub fn history(raw: &Option<RawHistory>) -> Option<History> {
    raw.as_ref().map(|raw| History {
        span: raw.span,
        separator: raw
            .separator
            .as_ref()
            .map_or_else(|| DEFAULT_SEPARATOR.to_owned(), |lit| lit.value()),
        separator_span: raw.separator.as_ref().map_or(raw.span, |lit| lit.span()),
        keep: raw.keep,
        expire_after: raw.expire_after,
    })
}

/// The TTL field, as the client and the item conversion see it.
pub struct Ttl<'a> {
    pub field: usize,
    /// `ttl(after = "...")`, in seconds.
    pub after: Option<u64>,
    /// The `TtlValue` type: the field's, or `T` of `Option<T>`.
    pub value_ty: &'a syn::Type,
    /// An `Option<T>` field: `None` leaves the attribute out.
    pub optional: bool,
}

impl<'a> Entity<'a> {
    /// The first field with a lifecycle role (the checks refuse a second).
    pub fn lifecycle_field(&self, role: impl Fn(LifecycleRole) -> bool) -> Option<usize> {
        self.fields
            .iter()
            .position(|f| f.lifecycle.iter().any(|(r, _)| role(*r)))
    }

    /// The `ttl` field.
    pub fn ttl(&self) -> Option<Ttl<'a>> {
        let f = self.lifecycle_field(|r| matches!(r, LifecycleRole::Ttl { .. }))?;
        self.ttl_of(f)
    }

    /// Field `f` as a TTL field, if it is one (the first `ttl` role).
    pub fn ttl_of(&self, f: usize) -> Option<Ttl<'a>> {
        let field = &self.fields[f];
        let after = field.lifecycle.iter().find_map(|(r, _)| match r {
            LifecycleRole::Ttl { after } => Some(*after),
            LifecycleRole::DeletedAt => None,
        })?;
        let (value_ty, optional) = match option_inner(field.ty) {
            Some(inner) => (inner, true),
            None => (field.ty, false),
        };
        Some(Ttl {
            field: f,
            after,
            value_ty,
            optional,
        })
    }

    /// The `deleted_at` field.
    pub fn deleted_at_field(&self) -> Option<usize> {
        self.lifecycle_field(|r| r == LifecycleRole::DeletedAt)
    }
}
