//! Integers written as plain decimal (`17`, `-5`), for custom formats over
//! tables that store them that way and for number-typed key attributes.
//!
//! Plain decimal does not sort numerically as text (`10` sorts before `9`),
//! so the derive offers no range operators on such a composite in a string
//! key; a number-typed key attribute (`N`) is compared by DynamoDB as a
//! number. Parsing accepts only canonical decimal (no `+`, no leading zeros,
//! no `-0`), so a key has one decoding.

use super::{KeyArg, KeyPart, KeyPartError};
use crate::attr::{AttributeError, FromAttribute, ToAttribute};
use aws_sdk_dynamodb::types::AttributeValue;
use std::marker::PhantomData;

/// An integer key composite written as plain decimal. Generated code wraps
/// `#[pk(n, number)]` and `{n:unpadded}` composites in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpadded<T>(pub T);

/// The integer types that can be written unpadded.
pub trait Decimal: KeyPart + std::fmt::Display + std::str::FromStr {}

macro_rules! decimal {
    ($($ty:ty),*) => {$( impl Decimal for $ty {} )*};
}
decimal!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

#[diagnostic::do_not_recommend]
impl<T: Decimal> ToAttribute for Unpadded<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.0.to_attribute()
    }
}

#[diagnostic::do_not_recommend]
impl<T: Decimal> FromAttribute for Unpadded<T> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        T::from_attribute(value).map(Unpadded)
    }
}

// Generated code names `Unpadded`; rustc's list of key types leaves it out.
#[diagnostic::do_not_recommend]
impl<T: Decimal> KeyPart for Unpadded<T> {
    fn encode_key(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "{}", self.0);
    }

    fn key_len_hint(&self) -> usize {
        8
    }

    fn decode_key(text: &str) -> Result<Self, KeyPartError> {
        let value: T = text
            .parse()
            .map_err(|_| KeyPartError::new("expected a decimal integer"))?;
        // `+5`, `05` and `-0` parse too; only the canonical text is a key.
        if value.to_string() != text {
            return Err(KeyPartError::new(
                "expected a canonical decimal integer (no `+`, no leading zeros)",
            ));
        }
        Ok(Unpadded(value))
    }
}

/// An argument for an unpadded composite: any `impl KeyArg<T>`, written as
/// plain decimal.
pub struct PlainArg<'a, T, A>(&'a A, PhantomData<fn() -> T>);

impl<'a, T, A> PlainArg<'a, T, A> {
    /// Wraps `arg`.
    pub fn new(arg: &'a A) -> Self {
        PlainArg(arg, PhantomData)
    }
}

impl<T: Decimal, A: KeyArg<T>> KeyArg<Unpadded<T>> for PlainArg<'_, T, A> {
    fn encode_arg(&self, out: &mut String) {
        // The padded text decodes exactly, whatever form the argument takes.
        let mut padded = String::new();
        self.0.encode_arg(&mut padded);
        if let Ok(value) = T::decode_key(&padded) {
            Unpadded(value).encode_key(out);
        }
    }

    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.0.to_attribute_arg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_decimal_round_trips_and_is_canonical() {
        let mut out = String::new();
        PlainArg::<i32, _>::new(&-17i32).encode_arg(&mut out);
        assert_eq!(out, "-17");
        assert_eq!(Unpadded::<i32>::decode_key("-17").unwrap().0, -17);
        for bad in ["+5", "05", "-0", "", "1.0", "x"] {
            assert!(Unpadded::<i32>::decode_key(bad).is_err(), "{bad}");
        }
        assert_eq!(Unpadded::<u8>::decode_key("0").unwrap().0, 0);
    }
}
