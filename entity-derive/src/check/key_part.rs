//! The rules of `#[derive(KeyPart)]`.

use crate::ctxt::Ctxt;
use crate::model::key_part::{KeyPartType, Shape};
use syn::Fields;

pub fn check(cx: &Ctxt, model: &KeyPartType) {
    not_generic(cx, model);
    match &model.shape {
        Shape::Enum(variants) => {
            // A key enum is stored as its variant's name: data would be lost.
            for v in variants
                .iter()
                .filter(|v| !matches!(v.variant.fields, Fields::Unit))
            {
                cx.error(
                    &v.variant.fields,
                    format!(
                        "variant `{}` holds data; a key enum has unit variants only",
                        v.variant.ident
                    ),
                );
            }
            // Two variants under one stored name could not be told apart.
            for (i, v) in variants.iter().enumerate() {
                if variants[..i].iter().any(|earlier| earlier.stored == v.stored) {
                    cx.error(v.variant, format!("two variants are stored as `{}`", v.stored));
                }
            }
            // A value of an empty enum cannot exist, so no key can hold one.
            if variants.is_empty() {
                cx.error(model.ident(), "an enum with no variants cannot be a key");
            }
        }
        Shape::Newtype(_) => {}
        Shape::Other => cx.error(
            model.ident(),
            "`#[derive(KeyPart)]` works on unit-only enums and single-field newtypes such as `struct UserId(String);`",
        ),
    }
}

/// A key's text format is fixed per type; a generic parameter would make it
/// depend on the instantiation.
fn not_generic(cx: &Ctxt, model: &KeyPartType) {
    if !model.input.generics.params.is_empty() {
        cx.error(
            &model.input.generics,
            "`#[derive(KeyPart)]` does not support generic types",
        );
    }
}
