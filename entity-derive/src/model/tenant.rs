//! `#[entity(tenant = tenant_id)]`: the field holding the tenant, which
//! every partition key holds (`check::tenant`).

use super::Field;
use crate::ctxt::{did_you_mean, Ctxt};
use proc_macro2::Span;
use syn::Ident;

/// The tenant field.
pub struct Tenant {
    /// The field's position.
    pub field: usize,
    /// The field's name in `tenant = ...`, for errors on it.
    pub token: Span,
}

/// Resolves `tenant = name` to a field; an unknown name is reported with a
/// suggestion.
pub fn build(cx: &Ctxt, raw: Option<&Ident>, fields: &[Field]) -> Option<Tenant> {
    use syn::ext::IdentExt;
    let ident = raw?;
    let found = fields.iter().position(|f| f.ident.unraw() == ident.unraw());
    if found.is_none() {
        let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
        cx.error(
            ident,
            format!(
                "unknown field `{ident}` in `tenant = ...`{}: name the `String` field that holds the tenant",
                did_you_mean(&ident.to_string(), names.iter().map(String::as_str))
            ),
        );
    }
    Some(Tenant {
        field: found?,
        token: ident.span(),
    })
}
