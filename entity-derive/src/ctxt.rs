//! Error accumulation: every bad attribute is reported at once, each on its
//! own token, before any code is generated (serde's `Ctxt`).

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn error(&self, tokens: impl ToTokens, message: impl Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens, message));
    }

    pub fn error_at(&self, span: proc_macro2::Span, message: impl Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new(span, message));
    }

    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    pub fn error_count(&self) -> usize {
        self.errors.borrow().len()
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    pub fn into_compile_errors(self) -> TokenStream {
        self.errors
            .into_inner()
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}

/// The closest candidate to `name`, for "did you mean" hints.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// ` (did you mean `x`?)` or nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match nearest(name, candidates) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}
