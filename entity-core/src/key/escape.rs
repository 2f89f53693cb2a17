//! Lossless escaping of the key separator inside composite values.
//!
//! A composed key joins its segments with `#`. A value that contains `#` would
//! otherwise let two different entities share a key (`a#b` + `c` versus `a` +
//! `b#c`), so values are escaped with a two-character percent code:
//! `#` becomes `%23` and `%` becomes `%25`. Nothing else changes, so keys stay
//! readable and most existing keys (`USER#123`) are already in canonical form.
//!
//! The escape is a bijection: [`unescape`] rejects any `%` that is not one of
//! the two codes, so every key string has at most one decoding. Byte order is
//! kept for every pair of values except that an escaped `#` sorts with `%`
//! (after `$` rather than before it).

use super::KeyPartError;

/// The separator between key segments.
pub const SEPARATOR: char = '#';

/// Appends `value` to `out`, escaping `#` and `%`.
#[inline]
pub fn escape_into(value: &str, out: &mut String) {
    // Fast path: the common value needs no escaping at all. A fold without
    // early exit vectorizes; `any` checks one byte per iteration.
    if !value
        .bytes()
        .fold(false, |found, b| found | (b == b'#') | (b == b'%'))
    {
        out.push_str(value);
        return;
    }
    for ch in value.chars() {
        match ch {
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            other => out.push(other),
        }
    }
}

/// Reverses [`escape_into`]. Fails on a raw `#` or on any `%` sequence other
/// than `%23` and `%25`, so a key has exactly one decoding.
pub fn unescape(text: &str) -> Result<std::borrow::Cow<'_, str>, KeyPartError> {
    if !text.bytes().any(|b| b == b'#' || b == b'%') {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find(['#', '%']) {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if tail.starts_with("%23") {
            out.push('#');
        } else if tail.starts_with("%25") {
            out.push('%');
        } else if tail.starts_with('#') {
            return Err(KeyPartError::new("an unescaped `#` inside a value"));
        } else {
            return Err(KeyPartError::new(
                "a `%` that is not the escape `%23` or `%25`",
            ));
        }
        rest = &tail[3..];
    }
    out.push_str(rest);
    Ok(std::borrow::Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        let mut out = String::new();
        escape_into(s, &mut out);
        out
    }

    #[test]
    fn escapes_separator_and_escape_char() {
        assert_eq!(esc("a#b%c"), "a%23b%25c");
        assert_eq!(esc("plain-value"), "plain-value");
        assert_eq!(unescape("a%23b%25c").unwrap(), "a#b%c");
    }

    #[test]
    fn rejects_non_canonical_text() {
        assert!(unescape("a#b").is_err());
        assert!(unescape("100%").is_err());
        assert!(unescape("%41").is_err());
    }
}
