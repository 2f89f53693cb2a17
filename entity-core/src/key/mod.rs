//! The key codec: how composite values become key text and back.
//!
//! A composed key is a sequence of segments joined by `#`: literal text
//! (`$myapp`, `v1`, `task`, `USER`) and field segments (`taskid_t-001`: an
//! optional label, then the value). [`KeyPart`] turns one value into text that
//! never contains `#` and sorts as the values sort; the generated composers
//! push literals and values into one `String`, and the generated parsers walk
//! the same template with a [`KeyReader`].

pub(crate) mod bucket;
mod escape;
mod number;
mod shard;
mod timestamp;
pub(crate) mod tuple;
pub(crate) mod unpadded;

pub use escape::{escape_into, unescape, SEPARATOR};
pub use shard::{fnv1a64, ShardSpec};
#[cfg(feature = "chrono")]
pub(crate) use timestamp::chrono_impl;
#[cfg(feature = "time")]
pub(crate) use timestamp::time_impl;
#[allow(unused_imports)]
pub(crate) use timestamp::Civil;

use crate::attr::AttributeError;
use aws_sdk_dynamodb::types::AttributeValue;
use std::fmt;

/// A value that can be a composite of a DynamoDB key.
///
/// Implemented for `String`, every integer width, `bool`, and (behind the
/// `chrono` and `time` features) UTC timestamps. `#[derive(KeyPart)]` covers
/// unit-only enums and newtypes of these.
///
/// The text must never contain a raw `#`, must sort as the values sort, and
/// [`decode_key`](KeyPart::decode_key) must accept exactly what
/// [`encode_key`](KeyPart::encode_key) writes.
///
/// ```
/// use entity_core::KeyPart;
///
/// let mut key = String::new();
/// (-5i32).encode_key(&mut key);
/// assert_eq!(key, "-9999999994");
/// assert_eq!(i32::decode_key(&key).unwrap(), -5);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be part of a DynamoDB key",
    label = "this field is a key composite, so its type must implement `KeyPart`",
    note = "key composites can be strings, integers, bools, UTC timestamps, and unit-only enums or newtypes that `#[derive(KeyPart)]`"
)]
pub trait KeyPart: Sized + crate::attr::ToAttribute + crate::attr::FromAttribute {
    /// Appends this value's key text to `out`.
    fn encode_key(&self, out: &mut String);

    /// The length `encode_key` will most likely append (a capacity hint).
    #[inline]
    fn key_len_hint(&self) -> usize {
        24
    }

    /// Parses key text written by [`encode_key`](KeyPart::encode_key).
    fn decode_key(text: &str) -> Result<Self, KeyPartError>;
}

/// An argument accepted where a key composite of type `T` is expected:
/// `T` itself, `&T`, and `&str` for `String` composites.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a `{T}` key composite",
    label = "expected a `{T}` (or a reference to one)"
)]
pub trait KeyArg<T: KeyPart> {
    /// Appends the key text of this argument to `out`.
    fn encode_arg(&self, out: &mut String);

    /// A capacity hint for `encode_arg`.
    #[inline]
    fn arg_len_hint(&self) -> usize {
        24
    }

    /// The argument as the attribute value of a `T` field (group setters
    /// store the composites they set).
    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError>;
}

impl<T: KeyPart> KeyArg<T> for T {
    #[inline]
    fn encode_arg(&self, out: &mut String) {
        self.encode_key(out)
    }
    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.to_attribute()
    }
    #[inline]
    fn arg_len_hint(&self) -> usize {
        self.key_len_hint()
    }
}

impl<T: KeyPart> KeyArg<T> for &T {
    #[inline]
    fn encode_arg(&self, out: &mut String) {
        (**self).encode_key(out)
    }
    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        (**self).to_attribute()
    }
    #[inline]
    fn arg_len_hint(&self) -> usize {
        (**self).key_len_hint()
    }
}

impl KeyArg<String> for &str {
    #[inline]
    fn encode_arg(&self, out: &mut String) {
        escape_into(self, out)
    }
    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(Some(AttributeValue::S((*self).to_owned())))
    }
    #[inline]
    fn arg_len_hint(&self) -> usize {
        self.len()
    }
}

/// A value for an optional key composite (an `Option<T>` field in a sparse
/// index key), as a group setter takes it: `None` leaves the item out of the
/// index, anything a [`KeyArg<T>`] accepts (`T`, `&T`, `&str` for a
/// `String`), `Some(T)` or `&Option<T>` puts it in.
///
/// ```
/// use entity_core::key::OptionalKeyArg;
///
/// fn present<A: OptionalKeyArg<String>>(arg: A) -> bool {
///     arg.into_key_arg().is_some()
/// }
/// assert!(present("abc"));
/// assert!(present(Some("abc".to_owned())));
/// assert!(!present(None));
/// assert!(!present(&None::<String>));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as an optional `{T}` key composite",
    label = "expected a `{T}` (or a reference to one), `Some(..)` of one, or `None`"
)]
pub trait OptionalKeyArg<T: KeyPart> {
    /// The key argument when there is a value.
    type Arg: KeyArg<T>;
    /// The value, or `None`.
    fn into_key_arg(self) -> Option<Self::Arg>;
}

impl<T: KeyPart> OptionalKeyArg<T> for T {
    type Arg = T;
    fn into_key_arg(self) -> Option<T> {
        Some(self)
    }
}

impl<'a, T: KeyPart> OptionalKeyArg<T> for &'a T {
    type Arg = &'a T;
    fn into_key_arg(self) -> Option<&'a T> {
        Some(self)
    }
}

impl<'a> OptionalKeyArg<String> for &'a str {
    type Arg = &'a str;
    fn into_key_arg(self) -> Option<&'a str> {
        Some(self)
    }
}

impl<T: KeyPart> OptionalKeyArg<T> for Option<T> {
    type Arg = T;
    fn into_key_arg(self) -> Option<T> {
        self
    }
}

impl<'a, T: KeyPart> OptionalKeyArg<T> for &'a Option<T> {
    type Arg = &'a T;
    fn into_key_arg(self) -> Option<&'a T> {
        self.as_ref()
    }
}

impl KeyPart for String {
    #[inline]
    fn encode_key(&self, out: &mut String) {
        escape_into(self, out)
    }
    #[inline]
    fn key_len_hint(&self) -> usize {
        self.len()
    }

    fn decode_key(text: &str) -> Result<Self, KeyPartError> {
        unescape(text).map(|s| s.into_owned())
    }
}

impl KeyPart for bool {
    #[inline]
    fn encode_key(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" })
    }
    #[inline]
    fn key_len_hint(&self) -> usize {
        5
    }

    fn decode_key(text: &str) -> Result<Self, KeyPartError> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(KeyPartError::new("expected `true` or `false`")),
        }
    }
}

/// Why one composite value's text could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPartError {
    reason: &'static str,
}

impl KeyPartError {
    /// An error with a fixed explanation.
    pub const fn new(reason: &'static str) -> Self {
        Self { reason }
    }

    /// The explanation.
    pub fn reason(&self) -> &'static str {
        self.reason
    }
}

impl fmt::Display for KeyPartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl std::error::Error for KeyPartError {}

/// Where a value inside a segment ends, for [`KeyReader::value`]: the
/// derive picks the rule from the format and the value's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// At the first `c` of the segment: no encoded value of the field holds
    /// `c` (`#` always works: no value holds it).
    First(char),
    /// At the last `c` of the segment: the value may hold `c`, but nothing
    /// after it in the segment can (`{sk}@{version}`).
    Last(char),
}

/// What a generated key parser returns: the composites, or why the text is
/// not such a key.
pub type KeyResult<T> = Result<T, KeyError>;

/// A raw key that does not parse as the key of an entity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` is not a {entity} {which}: {reason}")]
pub struct KeyError {
    /// The entity whose key was expected.
    pub entity: &'static str,
    /// Which key: `pk`, `sk`, or `<index> pk` / `<index> sk`.
    pub which: &'static str,
    /// The text that was given.
    pub key: String,
    /// What did not match.
    pub reason: String,
}

/// Walks a raw key along a key template, literal by literal and field by
/// field. Generated parsers drive it; it is public so hand-written code can
/// parse keys of the same shape.
///
/// ```
/// use entity_core::KeyReader;
///
/// let mut reader = KeyReader::new("Order", "sk", "ORDER#2024-01-15#abc%23d");
/// reader.literal("ORDER#")?;
/// let day: String = reader.field("")?;
/// reader.literal("#")?;
/// let id: String = reader.field("")?;
/// reader.finish()?;
/// assert_eq!((day.as_str(), id.as_str()), ("2024-01-15", "abc#d"));
/// # Ok::<(), entity_core::KeyError>(())
/// ```
#[derive(Debug)]
pub struct KeyReader<'a> {
    entity: &'static str,
    which: &'static str,
    key: &'a str,
    rest: &'a str,
}

impl<'a> KeyReader<'a> {
    /// Starts reading `key` as `entity`'s `which` key.
    pub fn new(entity: &'static str, which: &'static str, key: &'a str) -> Self {
        Self {
            entity,
            which,
            key,
            rest: key,
        }
    }

    fn error(&self, reason: impl Into<String>) -> KeyError {
        KeyError {
            entity: self.entity,
            which: self.which,
            key: self.key.to_owned(),
            reason: reason.into(),
        }
    }

    /// Consumes literal text, which must come next.
    pub fn literal(&mut self, text: &str) -> Result<(), KeyError> {
        match self.rest.strip_prefix(text) {
            Some(rest) => {
                self.rest = rest;
                Ok(())
            }
            None => Err(self.error(format!(
                "expected `{text}` at byte {}",
                self.key.len() - self.rest.len()
            ))),
        }
    }

    /// Consumes a field segment: its label, then the value up to the next
    /// `#` or the end.
    pub fn field<T: KeyPart>(&mut self, label: &str) -> Result<T, KeyError> {
        self.literal(label)?;
        self.value(Stop::First(SEPARATOR))
    }

    /// Consumes a value that ends where `stop` says, inside the current
    /// segment (a value never holds `#`). The text at the stop is left for
    /// the next [`literal`](Self::literal).
    ///
    /// ```
    /// use entity_core::key::Stop;
    /// use entity_core::KeyReader;
    ///
    /// // `ORDER#{id}@{version}`: the id may hold `@`, the version may not,
    /// // so the id ends at the segment's last `@`.
    /// let mut reader = KeyReader::new("Order", "sk", "ORDER#a@b@0000000003");
    /// reader.literal("ORDER#")?;
    /// let id: String = reader.value(Stop::Last('@'))?;
    /// reader.literal("@")?;
    /// let version: u32 = reader.value(Stop::First('#'))?;
    /// reader.finish()?;
    /// assert_eq!((id.as_str(), version), ("a@b", 3));
    /// # Ok::<(), entity_core::KeyError>(())
    /// ```
    pub fn value<T: KeyPart>(&mut self, stop: Stop) -> Result<T, KeyError> {
        let segment_end = self.rest.find(SEPARATOR).unwrap_or(self.rest.len());
        let segment = &self.rest[..segment_end];
        let end = match stop {
            Stop::First(SEPARATOR) => Some(segment_end),
            Stop::First(c) => segment.find(c),
            Stop::Last(c) => segment.rfind(c),
        };
        let Some(end) = end else {
            let c = match stop {
                Stop::First(c) | Stop::Last(c) => c,
            };
            return Err(self.error(format!(
                "expected `{c}` after the value at byte {}",
                self.key.len() - self.rest.len()
            )));
        };
        let (text, rest) = self.rest.split_at(end);
        let value = T::decode_key(text).map_err(|e| {
            self.error(format!(
                "value `{text}` at byte {}: {e}",
                self.key.len() - self.rest.len()
            ))
        })?;
        self.rest = rest;
        Ok(value)
    }

    /// Succeeds when the whole key has been read.
    pub fn finish(self) -> Result<(), KeyError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(self.error(format!("unexpected trailing `{}`", self.rest)))
        }
    }
}
