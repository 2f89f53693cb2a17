//! The fields the client manages (`created_at`, `updated_at`, `version`,
//! `generate`) and the unique constraints, resolved against the fields.

use super::{Entity, Field};
use crate::attr::{ManagedRole, RawUnique};
use crate::ctxt::{did_you_mean, Ctxt};
use proc_macro2::Span;

/// One `unique(...)` constraint.
pub struct Unique<'a> {
    /// `name = "..."`, else the fields' names joined by `_`.
    pub name: String,
    /// The `name = "..."` literal, else the `unique` token.
    pub name_span: Span,
    /// The `unique` token.
    pub span: Span,
    /// The fields in order, each with where it is named.
    pub fields: Vec<UniqueField<'a>>,
    pub case_insensitive: bool,
}

pub struct UniqueField<'a> {
    pub field: usize,
    pub token: Span,
    /// The type of the value composed: the field's, or `T` of `Option<T>`.
    pub value_ty: &'a syn::Type,
    /// An `Option<T>` field: `None` has no sentinel.
    pub optional: bool,
}

impl UniqueField<'_> {
    /// Whether the value is lowercased in a case-insensitive constraint:
    /// strings are; other types keep their text.
    pub fn folds(&self) -> bool {
        super::type_name(self.value_ty).as_deref() == Some("String")
    }
}

/// Resolves the constraints' field names; an unknown one is reported on
/// its name and left out, and a constraint left with no field is dropped.
pub fn build_unique<'a>(cx: &Ctxt, raw: &[RawUnique], fields: &[Field<'a>]) -> Vec<Unique<'a>> {
    use syn::ext::IdentExt;
    let mut out = Vec::new();
    for constraint in raw {
        let mut resolved = Vec::new();
        for ident in &constraint.fields {
            let Some(f) = fields.iter().position(|f| f.ident.unraw() == ident.unraw()) else {
                let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
                cx.error(
                    ident,
                    format!(
                        "unknown field `{ident}` in `unique(...)`{}",
                        did_you_mean(&ident.to_string(), names.iter().map(String::as_str))
                    ),
                );
                continue;
            };
            let (value_ty, optional) = match option_inner(fields[f].ty) {
                Some(inner) => (inner, true),
                None => (fields[f].ty, false),
            };
            resolved.push(UniqueField {
                field: f,
                token: ident.span(),
                value_ty,
                optional,
            });
        }
        if resolved.len() < constraint.fields.len() {
            continue;
        }
        let name = match &constraint.name {
            Some(lit) => lit.value(),
            None => constraint
                .fields
                .iter()
                .map(|i| i.unraw().to_string())
                .collect::<Vec<_>>()
                .join("_"),
        };
        out.push(Unique {
            name,
            name_span: constraint
                .name
                .as_ref()
                .map_or(constraint.span, |l| l.span()),
            span: constraint.span,
            fields: resolved,
            case_insensitive: constraint.case_insensitive.is_some(),
        });
    }
    out
}

/// `T` of a field typed `Option<T>`.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(inner) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

impl Entity<'_> {
    /// The first field with a managed role (the checks refuse a second).
    pub fn managed_field(&self, role: impl Fn(ManagedRole) -> bool) -> Option<usize> {
        self.fields
            .iter()
            .position(|f| f.managed.iter().any(|(r, _)| role(*r)))
    }

    /// The `created_at`, `updated_at` and `version` fields: what the client
    /// writes on every write, never an update.
    pub fn client_written_fields(&self) -> Vec<usize> {
        let written = |r: ManagedRole| !matches!(r, ManagedRole::Generate(_));
        (0..self.fields.len())
            .filter(|&f| self.fields[f].managed.iter().any(|(r, _)| written(*r)))
            .collect()
    }

    /// The fields of any unique constraint.
    pub fn unique_fields(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .unique
            .iter()
            .flat_map(|u| u.fields.iter().map(|f| f.field))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
