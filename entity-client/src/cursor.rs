//! Opaque, encrypted query cursors.
//!
//! ElectroDB's cursor is the bare base64 of the LastEvaluatedKey: edit it and
//! the next page starts wherever you like, in any partition; read it and you
//! see the table's key values (for a GSI cursor, the keys of an item the
//! reader may not know). Ours is sealed with XChaCha20-Poly1305:
//! `base64url(version || nonce || ciphertext || tag)`, the key derived from
//! the client's cursor secret with HKDF-SHA256, a random 24-byte nonce per
//! cursor (large enough to never repeat by chance), and the query fingerprint
//! and version bound as associated data. A cursor reveals nothing but its
//! length; one that was altered, or that belongs to another query (another
//! table, index, partition, sort condition, filter or entity) or another
//! secret, fails to open with [`Error::InvalidCursor`]; and the key inside is
//! then checked against the query itself, so even a cursor sealed with a
//! leaked secret cannot read outside the query it is used with.

use crate::error::{Error, ValidationError};
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use entity_core::Item;
use hkdf::Hkdf;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// 3: sealed (2 was signed, readable). Bound as associated data too.
const VERSION: u8 = 3;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
/// Domain separation: this key seals cursors and nothing else.
const KEY_SALT: &[u8] = b"entity-client cursor key";
const KEY_INFO: &[u8] = b"XChaCha20-Poly1305 cursor v3";

fn invalid(reason: &'static str) -> Error {
    Error::InvalidCursor { reason }
}

/// A digest of everything that identifies a query or scan, over a
/// canonical encoding of our own: every piece is a type tag and its
/// length-prefixed bytes, so no two different requests encode alike (the
/// SDK's `Debug` output is not a stable format, and hashing the filter's
/// text alone, `#n0 = :v0`, left out which attributes it names).
pub(crate) struct Fingerprint(Sha256);

mod tag {
    pub const TEXT: u8 = 0x01;
    pub const ABSENT: u8 = 0x02;
    pub const NAMES: u8 = 0x03;
    pub const VALUES: u8 = 0x04;
    pub const S: u8 = 0x10;
    pub const N: u8 = 0x11;
    pub const B: u8 = 0x12;
    pub const BOOL: u8 = 0x13;
    pub const NULL: u8 = 0x14;
    pub const SS: u8 = 0x15;
    pub const NS: u8 = 0x16;
    pub const BS: u8 = 0x17;
    pub const L: u8 = 0x18;
    pub const M: u8 = 0x19;
}

impl Fingerprint {
    /// Starts a fingerprint for one kind of request (`query`, `scan`).
    pub(crate) fn new(kind: &str) -> Self {
        Self(Sha256::new()).text(kind)
    }

    fn bytes(&mut self, tag: u8, bytes: &[u8]) {
        self.0.update([tag]);
        self.length(bytes.len());
        self.0.update(bytes);
    }

    fn length(&mut self, length: usize) {
        // usize is at most 64 bits on every target Rust supports.
        let length = u64::try_from(length).unwrap_or(u64::MAX);
        self.0.update(length.to_be_bytes());
    }

    /// Adds a piece of text.
    pub(crate) fn text(mut self, text: &str) -> Self {
        self.bytes(tag::TEXT, text.as_bytes());
        self
    }

    /// Adds a piece of text that may be absent (absent differs from empty).
    pub(crate) fn optional(self, text: Option<&str>) -> Self {
        match text {
            Some(text) => self.text(text),
            None => {
                let mut this = self;
                this.0.update([tag::ABSENT]);
                this
            }
        }
    }

    /// Adds the expression attribute names: placeholder and attribute name,
    /// in placeholder order.
    pub(crate) fn names(mut self, names: Option<&HashMap<String, String>>) -> Self {
        let mut names: Vec<_> = names.into_iter().flatten().collect();
        names.sort();
        self.0.update([tag::NAMES]);
        self.length(names.len());
        for (placeholder, name) in names {
            self.bytes(tag::TEXT, placeholder.as_bytes());
            self.bytes(tag::TEXT, name.as_bytes());
        }
        self
    }

    /// Adds the expression attribute values, in placeholder order. Fails on
    /// a value of a type this crate does not know (the SDK's `Unknown`).
    pub(crate) fn values(
        mut self,
        values: Option<&HashMap<String, AttributeValue>>,
    ) -> Result<Self, Error> {
        let mut values: Vec<_> = values.into_iter().flatten().collect();
        values.sort_by(|a, b| a.0.cmp(b.0));
        self.0.update([tag::VALUES]);
        self.length(values.len());
        for (placeholder, value) in values {
            self.bytes(tag::TEXT, placeholder.as_bytes());
            self.value(value)?;
        }
        Ok(self)
    }

    fn value(&mut self, value: &AttributeValue) -> Result<(), Error> {
        match value {
            AttributeValue::S(s) => self.bytes(tag::S, s.as_bytes()),
            AttributeValue::N(n) => self.bytes(tag::N, n.as_bytes()),
            AttributeValue::B(b) => self.bytes(tag::B, b.as_ref()),
            AttributeValue::Bool(b) => self.bytes(tag::BOOL, &[u8::from(*b)]),
            AttributeValue::Null(n) => self.bytes(tag::NULL, &[u8::from(*n)]),
            // A set has no order: members sorted, so a set built from a
            // `HashSet` fingerprints alike in every process.
            AttributeValue::Ss(set) => self.set(tag::SS, set.iter().map(|s| s.as_bytes())),
            AttributeValue::Ns(set) => self.set(tag::NS, set.iter().map(|n| n.as_bytes())),
            AttributeValue::Bs(set) => self.set(tag::BS, set.iter().map(|b| b.as_ref())),
            AttributeValue::L(list) => {
                self.0.update([tag::L]);
                self.length(list.len());
                for element in list {
                    self.value(element)?;
                }
            }
            AttributeValue::M(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                self.0.update([tag::M]);
                self.length(entries.len());
                for (name, element) in entries {
                    self.bytes(tag::TEXT, name.as_bytes());
                    self.value(element)?;
                }
            }
            _ => {
                return Err(ValidationError::InvalidRequest(
                    "a value of a DynamoDB type this client does not know".into(),
                )
                .into())
            }
        }
        Ok(())
    }

    fn set<'a>(&mut self, tag: u8, members: impl Iterator<Item = &'a [u8]>) {
        let mut members: Vec<&[u8]> = members.collect();
        members.sort_unstable();
        self.0.update([tag]);
        self.length(members.len());
        for member in members {
            self.bytes(tag::TEXT, member);
        }
    }

    /// The digest.
    pub(crate) fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// The cipher keyed for cursors: HKDF-SHA256 of the secret, so a secret
/// of any length (a passphrase too) gives a uniform 256-bit key.
fn cipher(secret: &[u8]) -> Result<XChaCha20Poly1305, Error> {
    let mut key = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's limit: the error is unreachable,
    // and typed.
    Hkdf::<Sha256>::new(Some(KEY_SALT), secret)
        .expand(KEY_INFO, &mut key)
        .map_err(|_| invalid("the cursor secret is unusable"))?;
    Ok(XChaCha20Poly1305::new(&key.into()))
}

/// What the tag covers besides the payload: the format and the query.
fn associated_data(fingerprint: &[u8; 32]) -> [u8; 33] {
    let mut aad = [VERSION; 33];
    aad[1..].copy_from_slice(fingerprint);
    aad
}

/// The key as plaintext: its attributes sorted by name, each tagged with its
/// type (string or number) and length-prefixed.
fn serialize(key: &Item) -> Result<Vec<u8>, Error> {
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    let count =
        u8::try_from(names.len()).map_err(|_| invalid("the key has too many attributes"))?;
    let mut payload = vec![count];
    for name in names {
        let (kind, value) = match key.get(name) {
            Some(AttributeValue::S(value)) => (b'S', value),
            Some(AttributeValue::N(value)) => (b'N', value),
            _ => return Err(invalid(
                "the last evaluated key holds an attribute that is neither a string nor a number",
            )),
        };
        payload.push(kind);
        for text in [name.as_str(), value.as_str()] {
            let len = u16::try_from(text.len()).map_err(|_| invalid("key too long"))?;
            payload.extend_from_slice(&len.to_be_bytes());
            payload.extend_from_slice(text.as_bytes());
        }
    }
    Ok(payload)
}

/// Seals a LastEvaluatedKey for the query with this fingerprint.
pub(crate) fn encode(secret: &[u8], fingerprint: &[u8; 32], key: &Item) -> Result<String, Error> {
    seal(secret, fingerprint, &serialize(key)?)
}

/// Where one shard of a sharded query stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ShardPosition {
    /// Nothing of it delivered yet.
    NotStarted,
    /// Resume after this item (the last delivered from this shard: its key
    /// attributes).
    After(Item),
    /// Every item of it delivered.
    Done,
}

/// Seals the position of every shard of a sharded query: their count, then
/// per shard a tag (0 not started, 1 done, 2 after a key) and the key.
pub(crate) fn encode_shards(
    secret: &[u8],
    fingerprint: &[u8; 32],
    positions: &[ShardPosition],
) -> Result<String, Error> {
    let count = u16::try_from(positions.len()).map_err(|_| invalid("too many shards"))?;
    let mut plaintext = count.to_be_bytes().to_vec();
    for position in positions {
        match position {
            ShardPosition::NotStarted => plaintext.push(0),
            ShardPosition::Done => plaintext.push(1),
            ShardPosition::After(key) => {
                plaintext.push(2);
                plaintext.extend(serialize(key)?);
            }
        }
    }
    seal(secret, fingerprint, &plaintext)
}

/// Opens a cursor made by [`encode_shards`] for the same query and secret.
pub(crate) fn decode_shards(
    secret: &[u8],
    fingerprint: &[u8; 32],
    cursor: &str,
) -> Result<Vec<ShardPosition>, Error> {
    let plaintext = open(secret, fingerprint, cursor)?;
    let [high, low, rest @ ..] = plaintext.as_slice() else {
        return Err(invalid("truncated"));
    };
    let mut rest = rest;
    let count = u16::from_be_bytes([*high, *low]);
    let mut positions = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let [tag, tail @ ..] = rest else {
            return Err(invalid("truncated"));
        };
        rest = tail;
        positions.push(match tag {
            0 => ShardPosition::NotStarted,
            1 => ShardPosition::Done,
            2 => ShardPosition::After(take_key(&mut rest)?),
            _ => return Err(invalid("unknown shard position")),
        });
    }
    if !rest.is_empty() {
        return Err(invalid("trailing bytes"));
    }
    Ok(positions)
}

/// Seals a plaintext for the query with this fingerprint.
fn seal(secret: &[u8], fingerprint: &[u8; 32], plaintext: &[u8]) -> Result<String, Error> {
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce)
        .map_err(|_| invalid("the operating system gave no randomness for its nonce"))?;
    let aad = associated_data(fingerprint);
    let sealed = cipher(secret)?
        .encrypt(
            XNonce::from_slice(&nonce),
            Payload {
                msg: plaintext,
                aad: &aad,
            },
        )
        .map_err(|_| invalid("the key could not be sealed"))?;
    let mut bytes = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
    bytes.push(VERSION);
    bytes.extend_from_slice(&nonce);
    bytes.extend_from_slice(&sealed);
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// One length-prefixed text of a cursor payload.
fn take_text(rest: &mut &[u8]) -> Result<String, Error> {
    let [high, low, tail @ ..] = *rest else {
        return Err(invalid("truncated"));
    };
    let len = usize::from(u16::from_be_bytes([*high, *low]));
    if tail.len() < len {
        return Err(invalid("truncated"));
    }
    let (text, tail) = tail.split_at(len);
    let text = String::from_utf8(text.to_vec()).map_err(|_| invalid("not UTF-8"))?;
    *rest = tail;
    Ok(text)
}

/// Opens a cursor made by [`encode`] for the same query and secret.
pub(crate) fn decode(secret: &[u8], fingerprint: &[u8; 32], cursor: &str) -> Result<Item, Error> {
    deserialize(&open(secret, fingerprint, cursor)?)
}

/// The plaintext of a cursor sealed for this query and secret.
fn open(secret: &[u8], fingerprint: &[u8; 32], cursor: &str) -> Result<Vec<u8>, Error> {
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor.trim())
        .map_err(|_| invalid("not a cursor (bad encoding)"))?;
    let [version, rest @ ..] = bytes.as_slice() else {
        return Err(invalid("not a cursor (too short)"));
    };
    if *version != VERSION {
        return Err(invalid("unknown cursor version"));
    }
    if rest.len() < NONCE_LEN + TAG_LEN + 1 {
        return Err(invalid("not a cursor (too short)"));
    }
    let (nonce, sealed) = rest.split_at(NONCE_LEN);
    let aad = associated_data(fingerprint);
    let plaintext = cipher(secret)?
        .decrypt(
            XNonce::from_slice(nonce),
            Payload {
                msg: sealed,
                aad: &aad,
            },
        )
        .map_err(|_| invalid("it was altered, or it belongs to another query"))?;
    Ok(plaintext)
}

/// The key inside an opened cursor.
fn deserialize(plaintext: &[u8]) -> Result<Item, Error> {
    let mut rest = plaintext;
    let key = take_key(&mut rest)?;
    if !rest.is_empty() {
        return Err(invalid("trailing bytes"));
    }
    Ok(key)
}

/// One key, as [`serialize`] writes it, from the front of `rest`.
fn take_key(input: &mut &[u8]) -> Result<Item, Error> {
    let [count, tail @ ..] = *input else {
        return Err(invalid("truncated"));
    };
    let count = usize::from(*count);
    let mut rest = tail;
    let mut key = Item::with_capacity(count);
    for _ in 0..count {
        let [kind, tail @ ..] = rest else {
            return Err(invalid("truncated"));
        };
        rest = tail;
        let name = take_text(&mut rest)?;
        let value = take_text(&mut rest)?;
        let value = match kind {
            b'S' => AttributeValue::S(value),
            b'N' => AttributeValue::N(value),
            _ => return Err(invalid("unknown attribute type")),
        };
        key.insert(name, value);
    }
    *input = rest;
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

    fn fingerprint(parts: &[&str]) -> [u8; 32] {
        parts
            .iter()
            .fold(Fingerprint::new("test"), |f, part| f.text(part))
            .finish()
    }

    fn of(names: &[(&str, &str)], values: &[(&str, AttributeValue)]) -> [u8; 32] {
        let names: HashMap<String, String> = names
            .iter()
            .map(|(p, n)| ((*p).to_owned(), (*n).to_owned()))
            .collect();
        let values: HashMap<String, AttributeValue> = values
            .iter()
            .map(|(p, v)| ((*p).to_owned(), v.clone()))
            .collect();
        Fingerprint::new("query")
            .text("#n0 = :v0")
            .names(Some(&names))
            .values(Some(&values))
            .unwrap()
            .finish()
    }

    #[test]
    fn shard_positions_round_trip() {
        let f = fingerprint(&["t", "sharded"]);
        let positions = vec![
            ShardPosition::After(key()),
            ShardPosition::NotStarted,
            ShardPosition::Done,
            ShardPosition::After(key()),
        ];
        let cursor = encode_shards(b"secret", &f, &positions).unwrap();
        assert_eq!(decode_shards(b"secret", &f, &cursor).unwrap(), positions);
        assert!(decode_shards(b"secret", &fingerprint(&["t", "q"]), &cursor).is_err());
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

    #[test]
    fn every_byte_is_authenticated() {
        let f = fingerprint(&["t", "q"]);
        let cursor = encode(b"secret", &f, &key()).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        for at in 0..bytes.len() {
            let mut altered = bytes.clone();
            altered[at] ^= 0x80;
            let altered = URL_SAFE_NO_PAD.encode(altered);
            assert!(decode(b"secret", &f, &altered).is_err(), "byte {at}");
        }
        // Cut short or lengthened.
        for bytes in [
            &bytes[..bytes.len() - 1],
            &[bytes.as_slice(), &[0]].concat(),
        ] {
            assert!(decode(b"secret", &f, &URL_SAFE_NO_PAD.encode(bytes)).is_err());
        }
    }

    #[test]
    fn reveals_no_key_value_and_never_repeats() {
        let f = fingerprint(&["t", "q"]);
        let key = Item::from([
            ("pk".to_owned(), AttributeValue::S("TENANT#acme".into())),
            ("sk".to_owned(), AttributeValue::S("USER#alice".into())),
        ]);
        let one = encode(b"secret", &f, &key).unwrap();
        let two = encode(b"secret", &f, &key).unwrap();
        assert_ne!(one, two, "a fresh nonce per cursor");
        for cursor in [&one, &two] {
            let bytes = URL_SAFE_NO_PAD.decode(cursor).unwrap();
            for text in ["TENANT#acme", "USER#alice", "acme", "alice"] {
                let found = bytes.windows(text.len()).any(|w| w == text.as_bytes());
                assert!(!found, "{text} in {cursor}");
            }
            assert_eq!(decode(b"secret", &f, cursor).unwrap(), key);
        }
    }

    #[test]
    fn attribute_names_are_part_of_the_fingerprint() {
        let one = AttributeValue::N("1".into());
        assert_ne!(
            of(&[("#n0", "a")], &[(":v0", one.clone())]),
            of(&[("#n0", "b")], &[(":v0", one)])
        );
    }

    #[test]
    fn values_are_encoded_by_type_and_sets_in_no_order() {
        let s = AttributeValue::S("1".into());
        let n = AttributeValue::N("1".into());
        assert_ne!(of(&[], &[(":v0", s)]), of(&[], &[(":v0", n)]));
        let set = |members: [&str; 2]| AttributeValue::Ss(members.map(String::from).to_vec());
        assert_eq!(
            of(&[], &[(":v0", set(["x", "y"]))]),
            of(&[], &[(":v0", set(["y", "x"]))])
        );
        // Length prefixes: ["ab", "c"] and ["a", "bc"] differ.
        let list = |a: &str, b: &str| {
            AttributeValue::L(vec![
                AttributeValue::S(a.into()),
                AttributeValue::S(b.into()),
            ])
        };
        assert_ne!(
            of(&[], &[(":v0", list("ab", "c"))]),
            of(&[], &[(":v0", list("a", "bc"))])
        );
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
