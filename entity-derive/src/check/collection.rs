//! The rules of `#[derive(Collection)]` that the union itself shows. What
//! only the members know is checked by `const` assertions in the expansion.

use crate::ctxt::Ctxt;
use crate::model::collection::{same_type, Union};

pub fn check(cx: &Ctxt, union: &Union) {
    // The accessor and decoding are per collection, not per instantiation.
    if !union.generics.params.is_empty() {
        cx.error(union.generics, "a collection cannot be generic");
    }
    variants_hold_one_entity(cx, union);
    each_entity_once(cx, union);
    // An empty union can decode nothing; it is a mistake, not a collection.
    if union.members.is_empty() {
        cx.error(union.ident, "a collection needs at least one member entity");
    }
}

/// Decoding picks a variant by entity name, so each variant wraps exactly
/// one entity.
fn variants_hold_one_entity(cx: &Ctxt, union: &Union) {
    for member in union.members.iter().filter(|m| m.ty.is_none()) {
        let ident = &member.variant.ident;
        cx.error(
            member.variant,
            format!("variant `{ident}` holds one member entity: write it `{ident}(Entity)`"),
        );
    }
}

/// An item decodes to one variant: the same entity twice would be ambiguous.
fn each_entity_once(cx: &Ctxt, union: &Union) {
    for (i, member) in union.members.iter().enumerate() {
        let Some(ty) = member.ty else { continue };
        let earlier = union.members[..i]
            .iter()
            .find(|m| m.ty.is_some_and(|t| same_type(t, ty)));
        if let Some(earlier) = earlier {
            let text = quote::quote!(#ty).to_string();
            cx.error(
                ty,
                format!(
                    "`{text}` is already the member `{}`: each entity appears once in a collection",
                    earlier.variant.ident
                ),
            );
        }
    }
}
