//! Order-preserving text for integers.
//!
//! DynamoDB compares string keys byte by byte, so `"10" < "9"`. Every integer
//! type gets a fixed width: unsigned values are zero-padded to the digits of
//! their type's maximum (`u8` 7 → `007`). Signed values take one more
//! character: a non-negative value is zero-padded (`i8` 5 → `0005`); a
//! negative one is `-` followed by the nines' complement of its zero-padded
//! magnitude (`i8` -5 → `-994`, -128 → `-871`). `-` sorts before `0`, and a
//! larger magnitude gives a smaller complement, so key order is value order
//! across the whole range. (ElectroDB writes -5 as `0000-5`, which sorts
//! after 4; plain zero padding cannot order negatives at all.)

use super::{KeyPart, KeyPartError};

#[inline]
fn push_padded(digits: &str, width: usize, out: &mut String) {
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

#[inline]
fn push_complement(digits: &str, width: usize, out: &mut String) {
    for _ in digits.len()..width {
        out.push('9');
    }
    for b in digits.bytes() {
        out.push(char::from(b'9' - (b - b'0')));
    }
}

fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn complement(text: &str) -> String {
    text.bytes()
        .map(|b| char::from(b'9' - (b - b'0')))
        .collect()
}

macro_rules! unsigned_key_part {
    ($($ty:ty => $width:expr),* $(,)?) => {$(
        impl KeyPart for $ty {
            #[inline]
            fn encode_key(&self, out: &mut String) {
                let mut buf = itoa::Buffer::new();
                push_padded(buf.format(*self), $width, out);
            }
            #[inline]
            fn key_len_hint(&self) -> usize {
                $width
            }

            fn decode_key(text: &str) -> Result<Self, KeyPartError> {
                if text.len() != $width || !all_digits(text) {
                    return Err(KeyPartError::new(concat!(
                        "expected ", stringify!($width), " digits for a ", stringify!($ty)
                    )));
                }
                text.parse::<$ty>()
                    .map_err(|_| KeyPartError::new(concat!("out of range for ", stringify!($ty))))
            }
        }
    )*};
}

macro_rules! signed_key_part {
    ($($ty:ty => $unsigned:ty, $width:expr),* $(,)?) => {$(
        impl KeyPart for $ty {
            #[inline]
            fn encode_key(&self, out: &mut String) {
                let mut buf = itoa::Buffer::new();
                if *self < 0 {
                    out.push('-');
                    push_complement(buf.format(self.unsigned_abs()), $width, out);
                } else {
                    push_padded(buf.format(*self), $width + 1, out);
                }
            }
            #[inline]
            fn key_len_hint(&self) -> usize {
                $width + 1
            }

            fn decode_key(text: &str) -> Result<Self, KeyPartError> {
                const WHAT: &str = concat!(
                    "expected ", stringify!($width), " digits after `-` or ",
                    stringify!($width), " + 1 digits for a ", stringify!($ty)
                );
                if let Some(digits) = text.strip_prefix('-') {
                    if digits.len() != $width || !all_digits(digits) {
                        return Err(KeyPartError::new(WHAT));
                    }
                    let magnitude: $unsigned = complement(digits)
                        .parse()
                        .map_err(|_| KeyPartError::new(WHAT))?;
                    if magnitude == 0 || magnitude > <$ty>::MIN.unsigned_abs() {
                        return Err(KeyPartError::new(concat!("out of range for ", stringify!($ty))));
                    }
                    // `MIN`'s magnitude does not fit the signed type; wrapping
                    // negation maps it onto `MIN` exactly.
                    Ok((magnitude as $ty).wrapping_neg())
                } else {
                    if text.len() != $width + 1 || !all_digits(text) {
                        return Err(KeyPartError::new(WHAT));
                    }
                    text.parse::<$ty>()
                        .map_err(|_| KeyPartError::new(concat!("out of range for ", stringify!($ty))))
                }
            }
        }
    )*};
}

unsigned_key_part! {
    u8 => 3, u16 => 5, u32 => 10, u64 => 20, u128 => 39, usize => 20,
}

signed_key_part! {
    i8 => u8, 3, i16 => u16, 5, i32 => u32, 10, i64 => u64, 19, i128 => u128, 39, isize => usize, 19,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc<T: KeyPart>(v: T) -> String {
        let mut s = String::new();
        v.encode_key(&mut s);
        s
    }

    #[test]
    fn documented_examples() {
        assert_eq!(enc(7u8), "007");
        assert_eq!(enc(5i8), "0005");
        assert_eq!(enc(-5i8), "-994");
        assert_eq!(enc(-128i8), "-871");
        assert_eq!(enc(-1i8), "-998");
        assert_eq!(enc(i64::MIN).len(), 20);
        assert_eq!(enc(i64::MAX).len(), 20);
    }

    #[test]
    fn extremes_round_trip() {
        for v in [i128::MIN, -1, 0, 1, i128::MAX] {
            assert_eq!(i128::decode_key(&enc(v)).unwrap(), v);
        }
        for v in [i8::MIN, -1, 0, i8::MAX] {
            assert_eq!(i8::decode_key(&enc(v)).unwrap(), v);
        }
        assert_eq!(u128::decode_key(&enc(u128::MAX)).unwrap(), u128::MAX);
    }

    #[test]
    fn rejects_non_canonical_numbers() {
        assert!(u8::decode_key("7").is_err());
        assert!(u8::decode_key("999").is_err());
        assert!(i8::decode_key("-999").is_err(), "negative zero");
        assert!(i8::decode_key("-870").is_err(), "-129 is out of range");
        assert!(i8::decode_key("+005").is_err());
    }
}
