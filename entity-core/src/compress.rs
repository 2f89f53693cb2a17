//! `#[entity(compress)]` fields: a text or binary value at or above a size
//! threshold is stored as a DynamoDB binary (`B`) holding a small header
//! and the value compressed with LZ4; a smaller one is stored as usual.
//! Reading accepts both forms, so compression can be turned on for a field
//! whose items were written without it.
//!
//! The stored bytes of a compressed value (all integers little-endian):
//!
//! | offset | bytes | meaning |
//! | --- | --- | --- |
//! | 0 | 3 | magic `FF 45 43` (`0xFF`, then `EC`) |
//! | 3 | 1 | format version, `01` |
//! | 4 | 1 | codec: `00` stored as is, `01` LZ4 block format |
//! | 5 | 4 | the value's length before compression (`u32`) |
//! | 9 | ... | the payload: the value's bytes, compressed by the codec |
//!
//! `0xFF` never starts UTF-8 text, so a text field's `S` and a compressed
//! `B` are never confused. A binary field's own value that happens to begin
//! with the magic is written framed with codec `00`, so what this crate
//! writes always reads back; an item written before compression was turned
//! on for a binary field could still begin with the magic by chance, and
//! would then fail to read with a [`CompressionError`] rather than be
//! misread.
//!
//! ```
//! use entity_core::compress::{decode, encode, DEFAULT_MIN};
//! use entity_core::__private::AttributeValue;
//!
//! let text = "the same words again and again. ".repeat(100);
//! let stored = encode(&text, DEFAULT_MIN).unwrap().unwrap();
//! let AttributeValue::B(bytes) = &stored else { panic!("compressed") };
//! assert_eq!(&bytes.as_ref()[..5], &[0xFF, b'E', b'C', 1, 1]);
//! assert!(bytes.as_ref().len() < text.len() / 10);
//! assert_eq!(decode::<String>(stored).unwrap(), text);
//!
//! // Below the threshold: a plain string, read back as one.
//! let short = encode(&"short".to_owned(), DEFAULT_MIN).unwrap().unwrap();
//! assert_eq!(short, AttributeValue::S("short".into()));
//! ```

use crate::attr::{AttributeError, FromAttribute, ToAttribute};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

/// The first bytes of every compressed value.
pub const MAGIC: [u8; 3] = [0xFF, b'E', b'C'];
/// The header's format version.
pub const FORMAT_VERSION: u8 = 1;
/// The header's length: magic, version, codec, original length.
pub const HEADER_LEN: usize = 9;
/// The threshold `#[entity(compress)]` uses unless `min = ...` is given:
/// values under 1 KiB stay as they are (the header and a binary's
/// indistinct bytes cost more than compression saves there).
pub const DEFAULT_MIN: usize = 1024;
/// LZ4 expands at most about 255 times: a header announcing more than this
/// per payload byte is corrupt, and is refused before anything is
/// allocated for it.
const MAX_RATIO: usize = 256;

/// How a compressed value's payload is encoded (the header's codec byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Codec {
    /// `00`: the bytes as they are (a binary value that begins with the
    /// magic, framed so it is not mistaken for a compressed one).
    Stored = 0,
    /// `01`: LZ4 block format (`lz4_flex::block`).
    Lz4 = 1,
}

/// Why a stored compressed value cannot be read: reported as
/// `DecodeError::Compressed`, naming the entity and the attribute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompressionError {
    /// The value begins with the magic but is shorter than a header.
    #[error("compressed value is {length} bytes, shorter than its {HEADER_LEN}-byte header")]
    Truncated {
        /// The value's length.
        length: usize,
    },
    /// A format version this crate does not read (written by a newer one).
    #[error("compressed value has format version {0}; this version of entity-core reads version {FORMAT_VERSION}")]
    UnknownVersion(u8),
    /// A codec this crate does not know.
    #[error("compressed value names codec {0}, which is not one of 0 (stored) and 1 (LZ4)")]
    UnknownCodec(u8),
    /// The payload does not decompress to the length the header gives.
    #[error("compressed value is corrupt: {0}")]
    Corrupt(String),
    /// A text field's bytes are not UTF-8.
    #[error("compressed value of a text field is not UTF-8 text")]
    NotText,
}

/// A field type `#[entity(compress)]` accepts: one whose value is bytes
/// (`String`, `Vec<u8>`, `Blob`, an `Option` of one).
#[diagnostic::on_unimplemented(
    message = "`#[entity(compress)]` cannot compress a `{Self}` field",
    label = "not text or bytes",
    note = "compress a `String`, `Vec<u8>` or `Blob` (or an `Option` of one); store a structured value as JSON text in a `String` to compress it"
)]
pub trait Compressible: ToAttribute + FromAttribute {
    /// The bytes to compress; `None` when there is no value (`None` of an
    /// `Option`), which is stored as usual (left out).
    fn bytes(&self) -> Option<&[u8]>;

    /// The value from its decompressed bytes.
    fn from_bytes(bytes: Vec<u8>) -> Result<Self, CompressionError>;
}

impl Compressible for String {
    fn bytes(&self) -> Option<&[u8]> {
        Some(self.as_bytes())
    }

    fn from_bytes(bytes: Vec<u8>) -> Result<Self, CompressionError> {
        String::from_utf8(bytes).map_err(|_| CompressionError::NotText)
    }
}

impl Compressible for Vec<u8> {
    fn bytes(&self) -> Option<&[u8]> {
        Some(self)
    }

    fn from_bytes(bytes: Vec<u8>) -> Result<Self, CompressionError> {
        Ok(bytes)
    }
}

impl Compressible for Blob {
    fn bytes(&self) -> Option<&[u8]> {
        Some(self.as_ref())
    }

    fn from_bytes(bytes: Vec<u8>) -> Result<Self, CompressionError> {
        Ok(Blob::new(bytes))
    }
}

impl<T: Compressible> Compressible for Option<T> {
    fn bytes(&self) -> Option<&[u8]> {
        self.as_ref().and_then(T::bytes)
    }

    fn from_bytes(bytes: Vec<u8>) -> Result<Self, CompressionError> {
        T::from_bytes(bytes).map(Some)
    }
}

/// Why a compressed field could not be read: its attribute is unusable, or
/// its compressed bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The attribute (a plain, uncompressed value) does not convert.
    Attribute(AttributeError),
    /// The compressed value's header or payload is bad.
    Compression(CompressionError),
}

/// The attribute stored for `value`: compressed when its bytes are at least
/// `min` long and compression makes them smaller, else the value's own
/// attribute (a binary one beginning with [`MAGIC`] framed as stored).
pub fn encode<T: Compressible>(
    value: &T,
    min: usize,
) -> Result<Option<AttributeValue>, AttributeError> {
    if let Some(done) = value.bytes().and_then(|bytes| compressed(bytes, min)) {
        return done.map(Some);
    }
    value.to_attribute()?.map(as_is).transpose()
}

/// [`encode`] of a value already converted to its attribute (text `S`,
/// binary `B`, or the list of numbers a `Vec<u8>` converts to; any other is
/// returned as it is): what an update's `set` of a compressed field
/// stores.
///
/// ```
/// use entity_core::compress::{encode_attribute, MAGIC};
/// use entity_core::__private::AttributeValue;
///
/// let long = AttributeValue::S("abc ".repeat(1_000));
/// let AttributeValue::B(stored) = encode_attribute(long, 1024).unwrap() else { panic!() };
/// assert!(stored.as_ref().starts_with(&MAGIC));
/// let short = AttributeValue::S("abc".into());
/// assert_eq!(encode_attribute(short.clone(), 1024).unwrap(), short);
/// ```
pub fn encode_attribute(
    value: AttributeValue,
    min: usize,
) -> Result<AttributeValue, AttributeError> {
    let bytes: Option<std::borrow::Cow<'_, [u8]>> = match &value {
        AttributeValue::S(text) => Some(text.as_bytes().into()),
        AttributeValue::B(blob) => Some(blob.as_ref().into()),
        AttributeValue::L(list) => list
            .iter()
            .map(|n| n.as_n().ok().and_then(|n| n.parse::<u8>().ok()))
            .collect::<Option<Vec<u8>>>()
            .map(Into::into),
        _ => None,
    };
    if let Some(done) = bytes.and_then(|bytes| compressed(&bytes, min)) {
        return done;
    }
    as_is(value)
}

/// `bytes` compressed and framed, when they are at least `min` long and
/// compression makes them smaller.
fn compressed(bytes: &[u8], min: usize) -> Option<Result<AttributeValue, AttributeError>> {
    if bytes.len() < min {
        return None;
    }
    let compressed = lz4_flex::block::compress(bytes);
    (HEADER_LEN + compressed.len() < bytes.len())
        .then(|| framed(Codec::Lz4, bytes.len(), &compressed))
}

/// A value stored uncompressed: as it is, unless it is a binary that would
/// read as a header, which is framed as stored.
fn as_is(value: AttributeValue) -> Result<AttributeValue, AttributeError> {
    match value {
        AttributeValue::B(blob) if blob.as_ref().starts_with(&MAGIC) => {
            let bytes = blob.as_ref();
            framed(Codec::Stored, bytes.len(), bytes)
        }
        plain => Ok(plain),
    }
}

/// A header and a payload, as one binary value.
fn framed(codec: Codec, length: usize, payload: &[u8]) -> Result<AttributeValue, AttributeError> {
    let length = u32::try_from(length)
        .map_err(|_| AttributeError::Invalid(format!("{length} bytes is too large to compress")))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.push(codec as u8);
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(payload);
    Ok(AttributeValue::B(Blob::new(out)))
}

/// Reads a stored value in either form: a binary beginning with [`MAGIC`]
/// is decompressed, anything else is read as the type's own attribute.
pub fn decode<T: Compressible>(value: AttributeValue) -> Result<T, ReadError> {
    match value {
        AttributeValue::B(blob) if blob.as_ref().starts_with(&MAGIC) => {
            let bytes = unframe(blob.as_ref()).map_err(ReadError::Compression)?;
            T::from_bytes(bytes).map_err(ReadError::Compression)
        }
        plain => T::from_attribute(plain).map_err(ReadError::Attribute),
    }
}

/// A compressed field's stored value read as `T`, any type its attribute
/// converts to (not only a [`Compressible`] one): a framed value's bytes
/// as the attribute an uncompressed value would be (text `S` when `T`
/// reads text, else binary `B`, else the list of numbers a `Vec<u8>`
/// converts to), anything else as it is. For readers that know the field
/// only by its attribute (a projected get).
///
/// ```
/// use entity_core::compress::{decode_as, encode};
///
/// let text = "abc ".repeat(1_000);
/// let stored = encode(&text, 1024).unwrap().unwrap();
/// assert_eq!(decode_as::<String>(stored.clone()).unwrap(), text);
/// assert_eq!(decode_as::<Vec<u8>>(stored).unwrap(), text.into_bytes());
/// ```
pub fn decode_as<T: FromAttribute>(value: AttributeValue) -> Result<T, ReadError> {
    let bytes = match value {
        AttributeValue::B(blob) if blob.as_ref().starts_with(&MAGIC) => {
            unframe(blob.as_ref()).map_err(ReadError::Compression)?
        }
        plain => return T::from_attribute(plain).map_err(ReadError::Attribute),
    };
    // Text, binary or numbers: the first form `T` takes; else why the
    // first was refused.
    let text = std::str::from_utf8(&bytes).ok().map(str::to_owned);
    let first = match text.map(|text| T::from_attribute(AttributeValue::S(text))) {
        Some(Ok(value)) => return Ok(value),
        Some(Err(e)) => Some(e),
        None => None,
    };
    let blob = AttributeValue::B(Blob::new(bytes.clone()));
    let first = match T::from_attribute(blob) {
        Ok(value) => return Ok(value),
        Err(e) => first.unwrap_or(e),
    };
    let list = bytes.iter().map(|b| AttributeValue::N(b.to_string()));
    T::from_attribute(AttributeValue::L(list.collect())).map_err(|_| ReadError::Attribute(first))
}

/// The original bytes of a framed value (which begins with the magic).
pub fn unframe(bytes: &[u8]) -> Result<Vec<u8>, CompressionError> {
    let Some((header, payload)) = bytes.split_at_checked(HEADER_LEN) else {
        return Err(CompressionError::Truncated {
            length: bytes.len(),
        });
    };
    if header[3] != FORMAT_VERSION {
        return Err(CompressionError::UnknownVersion(header[3]));
    }
    let length = u32::from_le_bytes([header[5], header[6], header[7], header[8]]);
    let length = usize::try_from(length).unwrap_or(usize::MAX);
    let corrupt = |why: String| CompressionError::Corrupt(why);
    match header[4] {
        0 if payload.len() == length => Ok(payload.to_vec()),
        0 => Err(corrupt(format!(
            "{} stored bytes where the header says {length}",
            payload.len()
        ))),
        1 if length > payload.len().saturating_mul(MAX_RATIO) => Err(corrupt(format!(
            "the header says {length} bytes, more than {} payload bytes can hold",
            payload.len()
        ))),
        1 => {
            let mut out = vec![0; length];
            match lz4_flex::block::decompress_into(payload, &mut out) {
                Ok(n) if n == length => Ok(out),
                Ok(n) => Err(corrupt(format!(
                    "decompressed to {n} bytes where the header says {length}"
                ))),
                Err(e) => Err(corrupt(e.to_string())),
            }
        }
        other => Err(CompressionError::UnknownCodec(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(value: &AttributeValue) -> &[u8] {
        match value {
            AttributeValue::B(b) => b.as_ref(),
            other => panic!("not binary: {other:?}"),
        }
    }

    #[test]
    fn large_values_are_framed_and_read_back() {
        let text = "lorem ipsum dolor sit amet ".repeat(200);
        let stored = encode(&text, 1024).unwrap().unwrap();
        let bytes = blob(&stored);
        assert_eq!(&bytes[..5], &[0xFF, 0x45, 0x43, 1, 1]);
        assert_eq!(
            &bytes[5..9],
            &u32::try_from(text.len()).unwrap().to_le_bytes()
        );
        assert_eq!(decode::<String>(stored).unwrap(), text);
        let raw: Vec<u8> = text.clone().into_bytes();
        let stored = encode(&raw, 1024).unwrap().unwrap();
        assert_eq!(decode::<Vec<u8>>(stored).unwrap(), raw);
    }

    #[test]
    fn small_or_incompressible_values_stay_plain() {
        assert_eq!(
            encode(&"x".repeat(1023), 1024).unwrap(),
            Some(AttributeValue::S("x".repeat(1023)))
        );
        // Bytes that do not shrink (every byte distinct) stay as they are.
        let noise: Vec<u8> = (0..=255).collect();
        assert!(matches!(
            encode(&noise, 16).unwrap(),
            Some(AttributeValue::L(_))
        ));
        assert_eq!(encode(&None::<String>, 0).unwrap(), None);
    }

    #[test]
    fn a_binary_value_that_looks_framed_is_framed_as_stored() {
        let tricky = Blob::new([0xFF, b'E', b'C', 9, 9].to_vec());
        let stored = encode(&tricky, 1024).unwrap().unwrap();
        assert_eq!(blob(&stored)[4], Codec::Stored as u8);
        assert_eq!(decode::<Blob>(stored).unwrap(), tricky);
    }

    #[test]
    fn bad_headers_are_errors() {
        let bad =
            |bytes: &[u8]| match decode::<String>(AttributeValue::B(Blob::new(bytes.to_vec()))) {
                Err(ReadError::Compression(e)) => e,
                other => panic!("{other:?}"),
            };
        assert_eq!(
            bad(&[0xFF, b'E', b'C', 1]),
            CompressionError::Truncated { length: 4 }
        );
        assert_eq!(
            bad(&[0xFF, b'E', b'C', 2, 1, 0, 0, 0, 0]),
            CompressionError::UnknownVersion(2)
        );
        assert_eq!(
            bad(&[0xFF, b'E', b'C', 1, 7, 0, 0, 0, 0]),
            CompressionError::UnknownCodec(7)
        );
        assert!(matches!(
            bad(&[0xFF, b'E', b'C', 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 1]),
            CompressionError::Corrupt(_)
        ));
        assert!(matches!(
            bad(&[0xFF, b'E', b'C', 1, 1, 50, 0, 0, 0, 0xF0, 1, 2]),
            CompressionError::Corrupt(_)
        ));
        assert_eq!(
            bad(&[0xFF, b'E', b'C', 1, 0, 1, 0, 0, 0, 0xC3]),
            CompressionError::NotText
        );
    }
}
