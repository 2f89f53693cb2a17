//! Derived key parts: the year, month, day or hour of a timestamp
//! (`{created_at:month}` in a format), written in place of the instant.
//!
//! A bucket is the leading part of the timestamp's key text
//! (`2024-01-15T10:30:00.000000000Z` gives `2024`, `2024-01`, `2024-01-15`,
//! `2024-01-15T10`): fixed width, so buckets sort as time, and a bucket
//! compares with another exactly as their time spans do. Parsing gives back
//! the bucket's text, never the instant, which the bucket does not hold.

use super::{KeyArg, KeyPart, KeyPartError};
use crate::attr::{AttributeError, FromAttribute, ToAttribute};
use aws_sdk_dynamodb::types::AttributeValue;
use std::marker::PhantomData;

/// `{t:year}`: `2024`.
pub const BUCKET_YEAR: u8 = 0;
/// `{t:month}`: `2024-01`.
pub const BUCKET_MONTH: u8 = 1;
/// `{t:day}`: `2024-01-15`.
pub const BUCKET_DAY: u8 = 2;
/// `{t:hour}`: `2024-01-15T10`.
pub const BUCKET_HOUR: u8 = 3;

/// The timestamp's key text after its year: `-MM-DDTHH:MM:SS.nnnnnnnnnZ`.
const AFTER_YEAR: usize = 26;
/// What the full text of the earliest instant of a bucket adds to it.
const START: &str = "-01-01T00:00:00.000000000Z";

/// How many characters of the text after the year a bucket keeps.
const fn kept(unit: u8) -> usize {
    match unit {
        BUCKET_YEAR => 0,
        BUCKET_MONTH => 3,
        BUCKET_DAY => 6,
        _ => 9,
    }
}

/// The text of a derived key part: generated parsers read it, and return
/// the `String` inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket<const UNIT: u8>(pub String);

#[diagnostic::do_not_recommend]
impl<const UNIT: u8> ToAttribute for Bucket<UNIT> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.0.to_attribute()
    }
}

#[diagnostic::do_not_recommend]
impl<const UNIT: u8> FromAttribute for Bucket<UNIT> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        String::from_attribute(value).map(Bucket)
    }
}

// Generated code names `Bucket`; rustc's list of key types leaves it out.
#[diagnostic::do_not_recommend]
impl<const UNIT: u8> KeyPart for Bucket<UNIT> {
    fn encode_key(&self, out: &mut String) {
        out.push_str(&self.0);
    }

    fn key_len_hint(&self) -> usize {
        13
    }

    /// Accepts exactly the text a bucket of this unit is written as: the
    /// bucket completed to its first instant must be a valid timestamp.
    fn decode_key(text: &str) -> Result<Self, KeyPartError> {
        let bad = || {
            KeyPartError::new(
                "expected a time bucket (`YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYY-MM-DDTHH`)",
            )
        };
        if text.ends_with(['-', 'T']) {
            return Err(bad());
        }
        let full = format!("{text}{}", &START[kept(UNIT)..]);
        let civil = super::Civil::parse(&full).map_err(|_| bad())?;
        let days = match civil.month {
            4 | 6 | 9 | 11 => 30,
            2 if civil.year % 4 == 0 && (civil.year % 100 != 0 || civil.year % 400 == 0) => 29,
            2 => 28,
            _ => 31,
        };
        if !(1..=12).contains(&civil.month) || !(1..=days).contains(&civil.day) || civil.hour > 23 {
            return Err(bad());
        }
        Ok(Bucket(text.to_owned()))
    }
}

/// An argument for a derived part: any `impl KeyArg<T>` of a timestamp
/// type, written as its bucket.
pub struct BucketArg<'a, T, A>(&'a A, PhantomData<fn() -> T>);

impl<'a, T, A> BucketArg<'a, T, A> {
    /// Wraps `arg`.
    pub fn new(arg: &'a A) -> Self {
        BucketArg(arg, PhantomData)
    }
}

impl<const UNIT: u8, T: KeyPart, A: KeyArg<T>> KeyArg<Bucket<UNIT>> for BucketArg<'_, T, A> {
    fn encode_arg(&self, out: &mut String) {
        // The bucket is the front of the instant's fixed-width text; the
        // year may be wider (expanded years), the rest is not.
        let mut instant = String::with_capacity(32);
        self.0.encode_arg(&mut instant);
        let end = instant.len().saturating_sub(AFTER_YEAR) + kept(UNIT);
        out.push_str(instant.get(..end).unwrap_or_default());
    }

    fn arg_len_hint(&self) -> usize {
        13
    }

    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.0.to_attribute_arg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key argument written as fixed timestamp text.
    struct Instant(&'static str);

    impl KeyArg<String> for Instant {
        fn encode_arg(&self, out: &mut String) {
            out.push_str(self.0);
        }
        fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
            Ok(None)
        }
    }

    fn bucket<const UNIT: u8>(text: &'static str) -> String {
        let mut out = String::new();
        KeyArg::<Bucket<UNIT>>::encode_arg(&BucketArg::<String, _>::new(&Instant(text)), &mut out);
        out
    }

    #[test]
    fn buckets_are_the_front_of_the_instant() {
        let t = "2024-01-15T10:30:00.000000005Z";
        assert_eq!(bucket::<BUCKET_YEAR>(t), "2024");
        assert_eq!(bucket::<BUCKET_MONTH>(t), "2024-01");
        assert_eq!(bucket::<BUCKET_DAY>(t), "2024-01-15");
        assert_eq!(bucket::<BUCKET_HOUR>(t), "2024-01-15T10");
        assert_eq!(
            bucket::<BUCKET_MONTH>("+10000-02-01T00:00:00.000000000Z"),
            "+10000-02"
        );
    }

    #[test]
    fn parsers_take_only_bucket_text_of_their_unit() {
        assert_eq!(
            Bucket::<BUCKET_MONTH>::decode_key("2024-01").unwrap().0,
            "2024-01"
        );
        assert!(Bucket::<BUCKET_DAY>::decode_key("2024-02-29").is_ok());
        assert!(Bucket::<BUCKET_HOUR>::decode_key("2024-01-15T23").is_ok());
        for bad in ["2024-1", "2024-13", "2024-01-15", "24-01", "2024-", ""] {
            assert!(Bucket::<BUCKET_MONTH>::decode_key(bad).is_err(), "{bad}");
        }
        for bad in ["2023-02-29", "2024-04-31", "2024-01-00", "2024-01"] {
            assert!(Bucket::<BUCKET_DAY>::decode_key(bad).is_err(), "{bad}");
        }
        assert!(Bucket::<BUCKET_HOUR>::decode_key("2024-01-15T24").is_err());
        assert!(Bucket::<BUCKET_YEAR>::decode_key("2024").is_ok());
        assert!(Bucket::<BUCKET_YEAR>::decode_key("2024-01").is_err());
    }
}
