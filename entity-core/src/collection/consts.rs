//! Helpers the `#[derive(Collection)]` expansion calls, most of them in
//! `const` checks. Reached through `__private::collection`; not an API.

use super::{CollectionSpec, PLACEHOLDER};

/// The spec at `index`, or a placeholder when the member is not in the
/// collection (which the union reports on its own).
pub const fn spec_at(specs: &'static [CollectionSpec], index: usize) -> &'static CollectionSpec {
    if index < specs.len() {
        &specs[index]
    } else {
        &PLACEHOLDER
    }
}

/// `const` string equality, for the union's compile-time checks.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `const` equality of optional strings (physical index names, `None` for
/// the table).
pub const fn opt_str_eq(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => str_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// `const` prefix test.
pub const fn str_starts_with(text: &str, prefix: &str) -> bool {
    let (t, p) = (text.as_bytes(), prefix.as_bytes());
    if p.len() > t.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if t[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `const` equality of string lists.
pub const fn strs_eq(a: &[&str], b: &[&str]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !str_eq(a[i], b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `path` starts with `parent` (a member of a sub-collection belongs
/// to its parents too).
pub const fn path_within(path: &[&str], parent: &[&str]) -> bool {
    if parent.len() > path.len() {
        return false;
    }
    let mut i = 0;
    while i < parent.len() {
        if !str_eq(path[i], parent[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// The position of the member's collection index that belongs to `path`
/// (the same collection or one below it), or `usize::MAX`.
pub const fn find(specs: &[CollectionSpec], path: &[&str]) -> usize {
    let mut i = 0;
    while i < specs.len() {
        if path_within(specs[i].path, path) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// Composes a collection's partition key from a member's spec and the
/// composites' key text.
pub fn compose_pk(spec: &CollectionSpec, values: &[&dyn Fn(&mut String)]) -> String {
    let mut out = String::with_capacity(
        spec.pk_texts.iter().map(|t| t.len()).sum::<usize>() + 24 * values.len(),
    );
    for (i, text) in spec.pk_texts.iter().enumerate() {
        out.push_str(text);
        if let Some(value) = values.get(i) {
            value(&mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_helpers() {
        assert!(str_eq("a", "a") && !str_eq("a", "b") && !str_eq("a", "ab"));
        assert!(str_starts_with("abc", "ab") && !str_starts_with("ab", "abc"));
        assert!(path_within(&["a", "b"], &["a"]) && !path_within(&["a"], &["a", "b"]));
        assert!(strs_eq(&["x", "y"], &["x", "y"]) && !strs_eq(&["x"], &["x", "y"]));
        assert!(opt_str_eq(None, None) && opt_str_eq(Some("g"), Some("g")));
        assert!(!opt_str_eq(Some("g"), None) && !opt_str_eq(Some("g"), Some("h")));
    }
}
