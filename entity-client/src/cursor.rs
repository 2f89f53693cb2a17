//! Opaque, signed query cursors.
//!
//! ElectroDB's cursor is the bare base64 of the LastEvaluatedKey: edit it and
//! the next page starts wherever you like, in any partition. Ours is
//! `base64url(key || HMAC-SHA256(secret, query fingerprint || key))`. A cursor
//! that was altered, or that belongs to another query (another table, index,
//! partition, sort condition, filter or entity), fails the signature check
//! with [`Error::InvalidCursor`]; and the key inside is then checked against
//! the query itself, so even a cursor signed with a leaked secret cannot read
//! outside the query it is used with.

use crate::error::Error;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use entity_core::Item;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

const VERSION: u8 = 1;
const MAC_LEN: usize = 32;

fn invalid(reason: &'static str) -> Error {
    Error::InvalidCursor { reason }
}

/// A digest of everything that identifies a query.
pub(crate) fn fingerprint(parts: &[&str]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().into()
}

fn mac(secret: &[u8], fingerprint: &[u8; 32], payload: &[u8]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(fingerprint);
    mac.update(payload);
    mac
}

/// Encodes a LastEvaluatedKey (string attributes only, as every key this
/// framework writes is a string).
pub(crate) fn encode(secret: &[u8], fingerprint: &[u8; 32], key: &Item) -> Result<String, Error> {
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    let mut payload = vec![VERSION, names.len() as u8];
    for name in names {
        let Some(AttributeValue::S(value)) = key.get(name) else {
            return Err(invalid(
                "the last evaluated key holds a non-string attribute",
            ));
        };
        for text in [name.as_str(), value.as_str()] {
            let len = u16::try_from(text.len()).map_err(|_| invalid("key too long"))?;
            payload.extend_from_slice(&len.to_be_bytes());
            payload.extend_from_slice(text.as_bytes());
        }
    }
    let tag = mac(secret, fingerprint, &payload).finalize().into_bytes();
    payload.extend_from_slice(&tag);
    Ok(URL_SAFE_NO_PAD.encode(payload))
}

/// Decodes and verifies a cursor made by [`encode`] for the same query.
pub(crate) fn decode(secret: &[u8], fingerprint: &[u8; 32], cursor: &str) -> Result<Item, Error> {
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor.trim())
        .map_err(|_| invalid("not a cursor (bad encoding)"))?;
    if bytes.len() < 2 + MAC_LEN {
        return Err(invalid("not a cursor (too short)"));
    }
    let (payload, tag) = bytes.split_at(bytes.len() - MAC_LEN);
    mac(secret, fingerprint, payload)
        .verify_slice(tag)
        .map_err(|_| invalid("it was altered, or it belongs to another query"))?;
    if payload[0] != VERSION {
        return Err(invalid("unknown cursor version"));
    }
    let count = payload[1] as usize;
    let mut rest = &payload[2..];
    let mut take = || -> Result<String, Error> {
        if rest.len() < 2 {
            return Err(invalid("truncated"));
        }
        let len = u16::from_be_bytes([rest[0], rest[1]]) as usize;
        let text = rest.get(2..2 + len).ok_or_else(|| invalid("truncated"))?;
        let text = String::from_utf8(text.to_vec()).map_err(|_| invalid("not UTF-8"))?;
        rest = &rest[2 + len..];
        Ok(text)
    };
    let mut key = Item::with_capacity(count);
    for _ in 0..count {
        let name = take()?;
        let value = take()?;
        key.insert(name, AttributeValue::S(value));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Item {
        Item::from([
            ("pk".to_owned(), AttributeValue::S("a".into())),
            ("sk".to_owned(), AttributeValue::S("b".into())),
        ])
    }

    #[test]
    fn round_trips_for_the_same_query() {
        let f = fingerprint(&["t", "q"]);
        let cursor = encode(b"secret", &f, &key()).unwrap();
        assert_eq!(decode(b"secret", &f, &cursor).unwrap(), key());
    }

    #[test]
    fn rejects_other_queries_secrets_and_edits() {
        let f = fingerprint(&["t", "q"]);
        let cursor = encode(b"secret", &f, &key()).unwrap();
        assert!(decode(b"secret", &fingerprint(&["t", "other"]), &cursor).is_err());
        assert!(decode(b"other", &f, &cursor).is_err());
        let mut bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        bytes[5] ^= 1;
        assert!(decode(b"secret", &f, &URL_SAFE_NO_PAD.encode(bytes)).is_err());
        assert!(decode(b"secret", &f, "!!!").is_err());
        assert!(decode(b"secret", &f, "").is_err());
    }
}
