//! Lossless, order-keeping escaping of composite values.
//!
//! A composed key joins its segments with `#`. A value that contains `#` would
//! otherwise let two different entities share a key (`a#b` + `c` versus `a` +
//! `b#c`), so values are escaped with percent codes: every character from
//! U+0000 to `#` (control characters, space, `!`, `"`, `#`) and `%` itself
//! become `%XX` (`John Smith` → `John%20Smith`). Everything else is kept, so
//! most keys stay readable and existing keys such as `USER#123` are already
//! canonical.
//!
//! Why those characters: after escaping, every character of a value sorts
//! above the separator, so a value always sorts after every shorter value it
//! extends — `John#…` before `John%20Smith#…` before `Johnny#…` — and range
//! conditions on a composite that is followed by more of the key are exact.
//! Byte order between values is kept too, except that an escaped character
//! sorts after `$` instead of before it.
//!
//! The escape is a bijection: [`unescape`] rejects a raw escaped character and
//! any `%` sequence that [`escape_into`] would not write, so every key string
//! has at most one decoding.

use super::KeyPartError;

/// The separator between key segments.
pub const SEPARATOR: char = '#';

/// Whether a byte is written as `%XX`.
#[inline]
fn escaped(b: u8) -> bool {
    b <= b'#' || b == b'%'
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `value` to `out`, escaping U+0000..=`#` and `%`.
#[inline]
pub fn escape_into(value: &str, out: &mut String) {
    // Fast path: the common value needs no escaping. A fold without early
    // exit vectorizes.
    if !value.bytes().fold(false, |found, b| found | escaped(b)) {
        out.push_str(value);
        return;
    }
    for ch in value.chars() {
        match u8::try_from(ch) {
            Ok(b) if escaped(b) => {
                out.push('%');
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xF)]));
            }
            _ => out.push(ch),
        }
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Reverses [`escape_into`]. Fails on a raw character that would have been
/// escaped, and on any `%` sequence other than the uppercase codes of
/// escaped characters, so a key has exactly one decoding.
pub fn unescape(text: &str) -> Result<std::borrow::Cow<'_, str>, KeyPartError> {
    if !text.bytes().fold(false, |found, b| found | escaped(b)) {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let code = match (
                bytes.get(i + 1).copied().and_then(hex_value),
                bytes.get(i + 2).copied().and_then(hex_value),
            ) {
                (Some(high), Some(low)) => (high << 4) | low,
                _ => {
                    return Err(KeyPartError::new(
                        "a `%` that is not followed by two uppercase hex digits",
                    ))
                }
            };
            if !escaped(code) {
                return Err(KeyPartError::new(
                    "a `%` code for a character that is never escaped",
                ));
            }
            out.push_str(&text[start..i]);
            out.push(char::from(code));
            i += 3;
            start = i;
        } else if escaped(b) {
            return Err(KeyPartError::new(
                "a character at or below `#` that is not escaped",
            ));
        } else {
            i += 1;
        }
    }
    out.push_str(&text[start..]);
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
    fn escapes_low_characters_and_the_escape() {
        assert_eq!(esc("a#b%c"), "a%23b%25c");
        assert_eq!(esc("John Smith!"), "John%20Smith%21");
        assert_eq!(esc("plain-value_ü"), "plain-value_ü");
        assert_eq!(esc("\0\n\""), "%00%0A%22");
        for text in ["a#b%c", "John Smith!", "\0\n\"", "ü %$&"] {
            assert_eq!(unescape(&esc(text)).unwrap(), text);
        }
    }

    #[test]
    fn extensions_sort_after_the_separator() {
        // `John` then more key must sort before any longer value starting
        // with `John`.
        for longer in ["John Smith", "John!", "John\"", "John\0", "Johnny"] {
            assert!(format!("{}#x", esc("John")) < esc(longer), "{longer:?}");
        }
    }

    #[test]
    fn rejects_non_canonical_text() {
        assert!(unescape("a#b").is_err());
        assert!(unescape("a b").is_err());
        assert!(unescape("100%").is_err());
        assert!(unescape("%41").is_err(), "A is never escaped");
        assert!(unescape("%2a").is_err(), "lowercase hex is not canonical");
    }
}
