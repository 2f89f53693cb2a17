//! Lossless, order-keeping escaping of composite values.
//!
//! A composed key joins its segments with `#`. A value that contains `#` would
//! otherwise let two different entities share a key (`a#b` + `c` versus `a` +
//! `b#c`), so values are escaped:
//!
//! * every character from U+0000 to `%` (control characters, space, `!`,
//!   `"`, `#`, `$`, `%`) becomes `%XX`, two uppercase hex digits
//!   (`John Smith` → `John%20Smith`);
//! * the two largest characters, U+10FFFE and U+10FFFF, become U+10FFFE
//!   followed by `0` or `1`;
//! * everything else is kept, so most keys stay readable and existing keys
//!   such as `USER#123` are already canonical.
//!
//! Why those characters. The escape is monotone: escaped low characters
//! keep their order among themselves (`%00` < … < `%25`) and sort below
//! every kept character (which starts at `&`, U+0026); the two high ones
//! sort above every kept character and in order. It is prefix-free: no
//! encoded character is a prefix of another. So encoded values order
//! exactly as the values do. And every encoded character starts at `%` or
//! above, above the separator `#`: a value always sorts after every shorter
//! value it extends followed by more key — `John#…` before `John%20Smith#…`
//! before `Johnny#…`. Together: a composed key orders exactly as the tuple
//! of its composites, for every Rust string. Finally, no encoded value
//! holds U+10FFFF, so "the key text `x`, then U+10FFFF" is above every key
//! that extends `x`: range bounds need no guess at the largest character.
//!
//! The escape is a bijection: [`unescape`] rejects a raw escaped character
//! and any escape sequence that [`escape_into`] would not write, so every
//! key string has at most one decoding.

use super::KeyPartError;

/// The separator between key segments.
pub const SEPARATOR: char = '#';

/// The lead of the escapes of the two largest characters.
const HIGH_ESCAPE: char = '\u{10FFFE}';

/// The first UTF-8 byte of U+100000..=U+10FFFF, where the two high escaped
/// characters live: a value without it needs no high escape.
const HIGH_PLANE_LEAD: u8 = 0xF4;

/// Whether a character is written as `%XX`.
#[inline]
fn escaped_low(b: u8) -> bool {
    b <= b'%'
}

/// Whether a byte may start or be part of a character that is escaped.
#[inline]
fn may_escape(b: u8) -> bool {
    escaped_low(b) || b == HIGH_PLANE_LEAD
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `value` to `out`, escaped.
#[inline]
pub fn escape_into(value: &str, out: &mut String) {
    // Fast path: the common value needs no escaping. A fold without early
    // exit vectorizes.
    if !value.bytes().fold(false, |found, b| found | may_escape(b)) {
        out.push_str(value);
        return;
    }
    for ch in value.chars() {
        match ch {
            '\0'..='%' => {
                let b = ch as u8;
                out.push('%');
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xF)]));
            }
            '\u{10FFFE}' => {
                out.push(HIGH_ESCAPE);
                out.push('0');
            }
            '\u{10FFFF}' => {
                out.push(HIGH_ESCAPE);
                out.push('1');
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
/// escaped, and on any escape sequence other than the ones `escape_into`
/// writes, so a key has exactly one decoding.
pub fn unescape(text: &str) -> Result<std::borrow::Cow<'_, str>, KeyPartError> {
    if !text.bytes().fold(false, |found, b| found | may_escape(b)) {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        let decoded = match ch {
            '%' => low_escape(chars.next(), chars.next())?,
            HIGH_ESCAPE => match chars.next() {
                Some('0') => '\u{10FFFE}',
                Some('1') => '\u{10FFFF}',
                _ => {
                    return Err(KeyPartError::new(
                        "U+10FFFE that is not followed by `0` or `1`",
                    ))
                }
            },
            '\0'..='%' | '\u{10FFFF}' => {
                return Err(KeyPartError::new(
                    "a character at or below `%`, or U+10FFFF, that is not escaped",
                ))
            }
            other => other,
        };
        out.push(decoded);
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// The character of `%XX`: only the codes `escape_into` writes.
fn low_escape(high: Option<char>, low: Option<char>) -> Result<char, KeyPartError> {
    let digit = |c: Option<char>| c.and_then(|c| u8::try_from(c).ok()).and_then(hex_value);
    let code = match (digit(high), digit(low)) {
        (Some(high), Some(low)) => (high << 4) | low,
        _ => {
            return Err(KeyPartError::new(
                "a `%` that is not followed by two uppercase hex digits",
            ))
        }
    };
    if !escaped_low(code) {
        return Err(KeyPartError::new(
            "a `%` code for a character that is never escaped",
        ));
    }
    Ok(char::from(code))
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
        assert_eq!(esc("a$b"), "a%24b");
        assert_eq!(esc("z\u{10FFFE}\u{10FFFF}"), "z\u{10FFFE}0\u{10FFFE}1");
        for text in [
            "a#b%c",
            "John Smith!",
            "\0\n\"",
            "ü %$&",
            "\u{10FFFF}x\u{10FFFE}",
        ] {
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
        assert!(unescape("a$b").is_err(), "`$` is escaped");
        assert!(unescape("\u{10FFFF}").is_err());
        assert!(unescape("\u{10FFFE}2").is_err());
        assert!(unescape("\u{10FFFE}").is_err());
    }
}
