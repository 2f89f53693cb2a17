//! Where each value of a key ends when the key is parsed back: the rule that
//! keeps text after a field (`{id}@{version}`) unambiguous.
//!
//! A value ends at the first character of the text that follows it. When no
//! encoded value of the field can hold that character, the parser splits at
//! its first occurrence; when the value may hold it but nothing after it in
//! the segment can, at its last; otherwise the format is refused.

use super::{Field, Key, Piece};

/// How the parser finds the end of a value (`entity_core::key::Stop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    First(char),
    Last(char),
}

/// What the text after a value would make ambiguous.
pub struct Ambiguous {
    /// The character the value may hold.
    pub stop: char,
}

/// The characters an encoded value of a field may hold, as far as its type
/// says at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alphabet {
    /// Unsigned integers: digits.
    Unsigned,
    /// Signed integers: digits and `-`.
    Signed,
    /// `true`/`false`.
    Bool,
    /// Timestamps: digits, `-`, `T`, `:`, `.`, `Z`.
    Timestamp,
    /// Escaped strings: nothing at or below `#`.
    Escaped,
    /// Other key parts (enums, newtypes): anything but `#`.
    Unknown,
}

impl Alphabet {
    fn of(field: &Field) -> Alphabet {
        match super::type_name(field.key_ty).as_deref() {
            Some("u8" | "u16" | "u32" | "u64" | "u128" | "usize") => Alphabet::Unsigned,
            Some("i8" | "i16" | "i32" | "i64" | "i128" | "isize") => Alphabet::Signed,
            Some("bool") => Alphabet::Bool,
            Some(
                "DateTime" | "NaiveDateTime" | "OffsetDateTime" | "PrimitiveDateTime"
                | "UtcDateTime",
            ) => Alphabet::Timestamp,
            Some("String" | "str" | "&") => Alphabet::Escaped,
            _ => Alphabet::Unknown,
        }
    }

    fn holds(self, c: char) -> bool {
        match self {
            Alphabet::Unsigned => c.is_ascii_digit(),
            Alphabet::Signed => c.is_ascii_digit() || c == '-',
            Alphabet::Bool => "truefals".contains(c),
            Alphabet::Timestamp => c.is_ascii_digit() || "-T:.Z".contains(c),
            Alphabet::Escaped => c > '#',
            Alphabet::Unknown => c != '#',
        }
    }
}

/// Whether `name` is a primitive integer type (what `unpadded` and `number`
/// take).
pub fn is_integer(field: &Field) -> bool {
    matches!(Alphabet::of(field), Alphabet::Unsigned | Alphabet::Signed)
}

/// Whether a field is a timestamp (what derived parts such as `{t:month}`
/// take).
pub fn is_timestamp(field: &Field) -> bool {
    Alphabet::of(field) == Alphabet::Timestamp
}

impl Key {
    /// How the parser finds the end of composite `k`'s value.
    pub fn stop_after(&self, fields: &[Field], k: usize) -> Result<Stop, Ambiguous> {
        let pieces = self.pieces();
        let at = pieces
            .iter()
            .position(|p| *p == Piece::Value(k))
            .expect("every composite has a piece");
        let (c, after) = match pieces.get(at + 1) {
            Some(Piece::Text(text)) => {
                let c = text.chars().next().expect("pieces hold no empty text");
                (c, &pieces[at + 1..])
            }
            _ => return Ok(Stop::First('#')),
        };
        let alphabet = |c: usize| Alphabet::of(&fields[self.composites[c].field]);
        if c == '#' || !alphabet(k).holds(c) {
            return Ok(Stop::First(c));
        }
        // The rest of the segment after that `c`: no `c` may follow.
        let mut later = Vec::new();
        for (i, piece) in after.iter().enumerate() {
            match piece {
                Piece::Text(text) => {
                    let text = if i == 0 { &text[c.len_utf8()..] } else { text };
                    let segment = text.split('#').next().unwrap_or_default();
                    if segment.contains(c) {
                        return Err(Ambiguous { stop: c });
                    }
                    if text.contains('#') {
                        break;
                    }
                }
                Piece::Value(v) => later.push(*v),
            }
        }
        if later.iter().any(|&v| alphabet(v).holds(c)) {
            return Err(Ambiguous { stop: c });
        }
        Ok(Stop::Last(c))
    }
}
