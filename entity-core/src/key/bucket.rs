//! Derived key parts: the year, month, day or hour of a timestamp
//! (`{created_at:month}` in a format), written in place of the instant.
//!
//! A bucket is the leading part of the timestamp's key text
//! (`2024-01-15T10:30:00.000000000Z` gives `2024`, `2024-01`, `2024-01-15`,
//! `2024-01-15T10`): fixed width, so buckets sort as time, and a bucket
//! compares with another exactly as their time spans do. Parsing gives back
//! the bucket's text, never the instant, which the bucket does not hold; it
//! accepts exactly the buckets the field's timestamp type is written as (no
//! `+10000` for a type whose years end at 9999).

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

/// The text of a derived key part of a `T` timestamp: generated parsers
/// read it, and return the `String` inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket<const UNIT: u8, T>(pub String, PhantomData<fn() -> T>);

impl<const UNIT: u8, T> Bucket<UNIT, T> {
    fn new(text: String) -> Self {
        Bucket(text, PhantomData)
    }
}

#[diagnostic::do_not_recommend]
impl<const UNIT: u8, T> ToAttribute for Bucket<UNIT, T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.0.to_attribute()
    }
}

#[diagnostic::do_not_recommend]
impl<const UNIT: u8, T> FromAttribute for Bucket<UNIT, T> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        String::from_attribute(value).map(Bucket::new)
    }
}

// Generated code names `Bucket`; rustc's list of key types leaves it out.
#[diagnostic::do_not_recommend]
impl<const UNIT: u8, T: KeyPart> KeyPart for Bucket<UNIT, T> {
    fn encode_key(&self, out: &mut String) {
        out.push_str(&self.0);
    }

    fn key_len_hint(&self) -> usize {
        13
    }

    /// Accepts exactly the text a bucket of this unit of a `T` is written
    /// as: the bucket completed to its first instant must be a valid
    /// timestamp, and one a `T` holds (a year a `T` cannot reach, such as
    /// `+10000` for `time`'s `OffsetDateTime`, is no bucket of any item).
    fn decode_key(text: &str) -> Result<Self, KeyPartError> {
        let bad = || {
            KeyPartError::new(
                "expected a time bucket (`YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYY-MM-DDTHH`) of a time the timestamp type holds",
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
        T::decode_key(&full).map_err(|_| bad())?;
        Ok(Bucket::new(text.to_owned()))
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

impl<const UNIT: u8, T: KeyPart, A: KeyArg<T>> KeyArg<Bucket<UNIT, T>> for BucketArg<'_, T, A> {
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
        KeyArg::<Bucket<UNIT, String>>::encode_arg(
            &BucketArg::<String, _>::new(&Instant(text)),
            &mut out,
        );
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
            Bucket::<BUCKET_MONTH, String>::decode_key("2024-01")
                .unwrap()
                .0,
            "2024-01"
        );
        assert!(Bucket::<BUCKET_DAY, String>::decode_key("2024-02-29").is_ok());
        assert!(Bucket::<BUCKET_HOUR, String>::decode_key("2024-01-15T23").is_ok());
        for bad in ["2024-1", "2024-13", "2024-01-15", "24-01", "2024-", ""] {
            assert!(
                Bucket::<BUCKET_MONTH, String>::decode_key(bad).is_err(),
                "{bad}"
            );
        }
        for bad in ["2023-02-29", "2024-04-31", "2024-01-00", "2024-01"] {
            assert!(
                Bucket::<BUCKET_DAY, String>::decode_key(bad).is_err(),
                "{bad}"
            );
        }
        assert!(Bucket::<BUCKET_HOUR, String>::decode_key("2024-01-15T24").is_err());
        assert!(Bucket::<BUCKET_YEAR, String>::decode_key("2024").is_ok());
        assert!(Bucket::<BUCKET_YEAR, String>::decode_key("2024-01").is_err());
    }

    /// A bucket parses only when its first instant is one the timestamp
    /// type holds: exactly the buckets its instants are written as.
    #[cfg(feature = "time")]
    #[test]
    fn time_buckets_stop_at_the_years_time_holds() {
        type Year = Bucket<BUCKET_YEAR, time::OffsetDateTime>;
        type Month = Bucket<BUCKET_MONTH, time::OffsetDateTime>;
        for good in ["0000", "2024", "9999", "-9999", "-0001"] {
            assert!(Year::decode_key(good).is_ok(), "{good}");
        }
        for bad in ["+10000", "-10000", "+262143", "+2147483647"] {
            assert!(Year::decode_key(bad).is_err(), "{bad}");
        }
        assert!(Month::decode_key("9999-12").is_ok());
        assert!(Month::decode_key("+10000-01").is_err());
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn chrono_buckets_stop_at_the_years_chrono_holds() {
        use chrono::{DateTime, Datelike, Utc};
        type Year = Bucket<BUCKET_YEAR, DateTime<Utc>>;
        let max = DateTime::<Utc>::MAX_UTC.year();
        let min = DateTime::<Utc>::MIN_UTC.year();
        for good in [
            format!("+{max}"),
            format!("-{}", -min),
            "+10000".into(),
            "9999".into(),
        ] {
            assert!(Year::decode_key(&good).is_ok(), "{good}");
        }
        for bad in [
            format!("+{}", max + 1),
            format!("-{}", 1 - min),
            "+2147483647".into(),
        ] {
            assert!(Year::decode_key(&bad).is_err(), "{bad}");
        }
    }

    /// The year bucket the composer writes for an instant in year `year`
    /// (whether or not any timestamp type holds that year).
    #[cfg(any(feature = "chrono", feature = "time"))]
    fn year_bucket(year: i32) -> String {
        let civil = crate::key::Civil {
            year,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            nanos: 0,
        };
        let mut text = String::new();
        civil.write(&mut text);
        text.truncate(text.len() - AFTER_YEAR);
        text
    }

    #[cfg(feature = "time")]
    proptest::proptest! {
        /// `time`: a year bucket parses exactly when `OffsetDateTime`
        /// holds the year, and every instant's buckets parse back as
        /// written.
        #[test]
        fn time_buckets_parse_exactly_what_is_composed(
            year in proptest::prelude::any::<i32>(),
            small in -20_000i32..20_000,
            seconds in time::OffsetDateTime::new_utc(time::Date::MIN, time::Time::MIDNIGHT).unix_timestamp()
                ..=time::OffsetDateTime::new_utc(time::Date::MAX, time::Time::MIDNIGHT).unix_timestamp(),
        ) {
            type T = time::OffsetDateTime;
            let held = time::Date::MIN.year()..=time::Date::MAX.year();
            for year in [year, small] {
                let parsed = Bucket::<BUCKET_YEAR, T>::decode_key(&year_bucket(year));
                proptest::prop_assert_eq!(parsed.is_ok(), held.contains(&year), "{}", year);
            }
            let instant = T::from_unix_timestamp(seconds).unwrap();
            round_trip::<T>(&instant)?;
        }
    }

    #[cfg(feature = "chrono")]
    proptest::proptest! {
        /// chrono: likewise, with chrono's wider years.
        #[test]
        fn chrono_buckets_parse_exactly_what_is_composed(
            year in proptest::prelude::any::<i32>(),
            small in -300_000i32..300_000,
            seconds in chrono::DateTime::<chrono::Utc>::MIN_UTC.timestamp()
                ..=chrono::DateTime::<chrono::Utc>::MAX_UTC.timestamp(),
        ) {
            use chrono::{DateTime, Datelike, Utc};
            type T = DateTime<Utc>;
            let held = T::MIN_UTC.year()..=T::MAX_UTC.year();
            for year in [year, small] {
                let parsed = Bucket::<BUCKET_YEAR, T>::decode_key(&year_bucket(year));
                proptest::prop_assert_eq!(parsed.is_ok(), held.contains(&year), "{}", year);
            }
            let instant = T::from_timestamp(seconds, 0).unwrap();
            round_trip::<T>(&instant)?;
        }
    }

    /// Every bucket of `instant` parses back as the text it was written as.
    #[cfg(any(feature = "chrono", feature = "time"))]
    fn round_trip<T: KeyPart>(instant: &T) -> Result<(), proptest::test_runner::TestCaseError> {
        fn one<const UNIT: u8, T: KeyPart>(
            instant: &T,
        ) -> Result<(), proptest::test_runner::TestCaseError> {
            let mut text = String::new();
            KeyArg::<Bucket<UNIT, T>>::encode_arg(&BucketArg::<T, _>::new(instant), &mut text);
            let parsed = Bucket::<UNIT, T>::decode_key(&text).map(|b| b.0);
            proptest::prop_assert_eq!(parsed.ok(), Some(text));
            Ok(())
        }
        one::<BUCKET_YEAR, T>(instant)?;
        one::<BUCKET_MONTH, T>(instant)?;
        one::<BUCKET_DAY, T>(instant)?;
        one::<BUCKET_HOUR, T>(instant)
    }
}
