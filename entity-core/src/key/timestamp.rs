//! ISO-8601 UTC text for timestamps, in keys and in attributes.
//!
//! Every timestamp is written as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: UTC, a fixed
//! width, and all nine fractional digits, so the text sorts as the instants do
//! and parses back to the same instant (no precision is dropped). Years outside
//! 0000–9999 use ISO-8601's expanded form (`+10000-…`, `-0001-…`); they round
//! trip but do not sort with the four-digit years. A leap second (chrono's
//! nanosecond overflow) is written as second `60`.

#![cfg_attr(not(any(feature = "chrono", feature = "time")), allow(dead_code))]

use super::KeyPartError;

/// A UTC calendar instant, the common ground of chrono and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Civil {
    pub year: i32,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub nanos: u32,
}

fn push2(out: &mut String, v: u8) {
    out.push(char::from(b'0' + v / 10));
    out.push(char::from(b'0' + v % 10));
}

impl Civil {
    pub fn write(&self, out: &mut String) {
        if (0..=9999).contains(&self.year) {
            // The common case: fixed width, one `push_str`.
            fn put(b: &mut [u8], at: usize, width: usize, mut v: u32) {
                for slot in b[at..at + width].iter_mut().rev() {
                    *slot = b'0' + (v % 10) as u8;
                    v /= 10;
                }
            }
            let mut b = *b"0000-00-00T00:00:00.000000000Z";
            put(&mut b, 0, 4, self.year as u32);
            put(&mut b, 5, 2, self.month.into());
            put(&mut b, 8, 2, self.day.into());
            put(&mut b, 11, 2, self.hour.into());
            put(&mut b, 14, 2, self.minute.into());
            put(&mut b, 17, 2, self.second.into());
            put(&mut b, 20, 9, self.nanos);
            out.push_str(std::str::from_utf8(&b).expect("ASCII digits"));
            return;
        }
        let mut buf = itoa::Buffer::new();
        if (0..=9999).contains(&self.year) {
            let y = buf.format(self.year);
            out.push_str(&"0000"[y.len()..]);
            out.push_str(y);
        } else {
            out.push(if self.year < 0 { '-' } else { '+' });
            let y = buf.format(self.year.unsigned_abs());
            if y.len() < 4 {
                out.push_str(&"0000"[y.len()..]);
            }
            out.push_str(y);
        }
        out.push('-');
        push2(out, self.month);
        out.push('-');
        push2(out, self.day);
        out.push('T');
        push2(out, self.hour);
        out.push(':');
        push2(out, self.minute);
        out.push(':');
        push2(out, self.second);
        out.push('.');
        let n = buf.format(self.nanos);
        out.push_str(&"000000000"[n.len()..]);
        out.push_str(n);
        out.push('Z');
    }

    pub fn parse(text: &str) -> Result<Self, KeyPartError> {
        const BAD: &str = "expected an ISO-8601 UTC timestamp `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`";
        let bad = || KeyPartError::new(BAD);
        let (year, rest) = match text.as_bytes().first() {
            Some(b'+') | Some(b'-') => {
                // Expanded year: sign, then at least four digits, then `-`.
                let dash = text[1..].find('-').map(|i| i + 1).ok_or_else(bad)?;
                let digits = &text[1..dash];
                if digits.len() < 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                let magnitude: i32 = digits.parse().map_err(|_| bad())?;
                let year = if text.starts_with('-') {
                    -magnitude
                } else {
                    magnitude
                };
                if (0..=9999).contains(&year) {
                    return Err(bad()); // four-digit years have one spelling only
                }
                if digits.len() > 4 && digits.starts_with('0') {
                    return Err(bad());
                }
                (year, &text[dash..])
            }
            _ => {
                let digits = text.get(..4).ok_or_else(bad)?;
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                (digits.parse().map_err(|_| bad())?, &text[4..])
            }
        };
        let b = rest.as_bytes();
        if b.len() != 26
            || b[0] != b'-'
            || b[3] != b'-'
            || b[6] != b'T'
            || b[9] != b':'
            || b[12] != b':'
            || b[15] != b'.'
            || b[25] != b'Z'
        {
            return Err(bad());
        }
        let two = |i: usize| -> Result<u8, KeyPartError> {
            let (h, l) = (b[i], b[i + 1]);
            if h.is_ascii_digit() && l.is_ascii_digit() {
                Ok((h - b'0') * 10 + (l - b'0'))
            } else {
                Err(bad())
            }
        };
        let nanos_text = &rest[16..25];
        if !nanos_text.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        Ok(Civil {
            year,
            month: two(1)?,
            day: two(4)?,
            hour: two(7)?,
            minute: two(10)?,
            second: two(13)?,
            nanos: nanos_text.parse().map_err(|_| bad())?,
        })
    }
}

#[cfg(feature = "chrono")]
pub(crate) mod chrono_impl {
    use super::{Civil, KeyPartError};
    use crate::key::KeyPart;
    use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};

    pub(crate) fn to_civil(t: &DateTime<Utc>) -> Civil {
        // `DateTime`'s accessors each rebuild the local date and time; ask once.
        let naive = t.naive_utc();
        let (date, time) = (naive.date(), naive.time());
        let (second, nanos) = match time.nanosecond() {
            n if n >= 1_000_000_000 => (60, n - 1_000_000_000),
            n => (time.second() as u8, n),
        };
        Civil {
            year: date.year(),
            month: date.month() as u8,
            day: date.day() as u8,
            hour: time.hour() as u8,
            minute: time.minute() as u8,
            second,
            nanos,
        }
    }

    pub(crate) fn from_civil(c: Civil) -> Result<DateTime<Utc>, KeyPartError> {
        let (second, nanos) = if c.second == 60 {
            (59, c.nanos + 1_000_000_000)
        } else {
            (c.second, c.nanos)
        };
        NaiveDate::from_ymd_opt(c.year, c.month.into(), c.day.into())
            .and_then(|d| d.and_hms_nano_opt(c.hour.into(), c.minute.into(), second.into(), nanos))
            .map(|naive| naive.and_utc())
            .ok_or_else(|| KeyPartError::new("not a valid calendar date and time"))
    }

    impl KeyPart for DateTime<Utc> {
        fn encode_key(&self, out: &mut String) {
            to_civil(self).write(out);
        }
        #[inline]
        fn key_len_hint(&self) -> usize {
            30
        }

        fn decode_key(text: &str) -> Result<Self, KeyPartError> {
            from_civil(Civil::parse(text)?)
        }
    }
}

#[cfg(feature = "time")]
pub(crate) mod time_impl {
    use super::{Civil, KeyPartError};
    use crate::key::KeyPart;
    use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

    pub(crate) fn to_civil(t: &OffsetDateTime) -> Civil {
        let t = t.to_offset(UtcOffset::UTC);
        Civil {
            year: t.year(),
            month: u8::from(t.month()),
            day: t.day(),
            hour: t.hour(),
            minute: t.minute(),
            second: t.second(),
            nanos: t.nanosecond(),
        }
    }

    pub(crate) fn from_civil(c: Civil) -> Result<OffsetDateTime, KeyPartError> {
        let invalid = |_| KeyPartError::new("not a valid calendar date and time");
        let month = Month::try_from(c.month).map_err(invalid)?;
        let date = Date::from_calendar_date(c.year, month, c.day).map_err(invalid)?;
        let time = Time::from_hms_nano(c.hour, c.minute, c.second, c.nanos).map_err(invalid)?;
        Ok(PrimitiveDateTime::new(date, time).assume_utc())
    }

    impl KeyPart for OffsetDateTime {
        fn encode_key(&self, out: &mut String) {
            to_civil(self).write(out);
        }
        #[inline]
        fn key_len_hint(&self) -> usize {
            30
        }

        fn decode_key(text: &str) -> Result<Self, KeyPartError> {
            from_civil(Civil::parse(text)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Civil;

    fn civil(year: i32) -> Civil {
        Civil {
            year,
            month: 1,
            day: 15,
            hour: 10,
            minute: 30,
            second: 0,
            nanos: 5,
        }
    }

    #[test]
    fn fixed_width_text_round_trips() {
        let mut s = String::new();
        civil(2024).write(&mut s);
        assert_eq!(s, "2024-01-15T10:30:00.000000005Z");
        assert_eq!(Civil::parse(&s).unwrap(), civil(2024));
    }

    #[test]
    fn expanded_years_round_trip() {
        for year in [-1, -10000, 10000, 262143] {
            let mut s = String::new();
            civil(year).write(&mut s);
            assert_eq!(Civil::parse(&s).unwrap(), civil(year), "{s}");
        }
    }

    #[test]
    fn rejects_other_spellings() {
        for text in [
            "2024-01-15T10:30:00Z",
            "2024-01-15T10:30:00.000Z",
            "+2024-01-15T10:30:00.000000000Z",
            "2024-01-15 10:30:00.000000000Z",
        ] {
            assert!(Civil::parse(text).is_err(), "{text}");
        }
    }
}
