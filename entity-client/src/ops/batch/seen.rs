//! The keys a batch write has named, to refuse a repeat: DynamoDB refuses a
//! request that names an item twice, and two puts of one key in chunks in
//! flight at once would land in no defined order.
//!
//! A streamed write of millions of items cannot keep every key, so the set
//! keeps a 64-bit hash of each (randomly seeded, per batch): about 10 bytes
//! an item where a key's text costs tens. Two different keys share a hash
//! with odds of about n²/2⁶⁵ (one in 3·10⁹ for 100,000 items): the later one
//! is then refused as a repeat, and reported like one, never dropped
//! silently.
//!
//! A key is hashed where its request is built, from the values in the item,
//! so no key is copied to be remembered. The hash is foldhash's quality
//! variant: a 64-bit hash as evenly spread as SipHash's for these odds, at
//! a third of its cost, which every item written pays.

use crate::error::ValidationError;
use crate::keys::KeyRef;
use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// The hashes of the keys named so far.
#[derive(Default)]
pub(crate) struct SeenKeys {
    /// The batch's randomly seeded hash of table keys.
    hasher: foldhash::quality::RandomState,
    hashes: HashSet<u64, BuildHasherDefault<Prehashed>>,
}

impl SeenKeys {
    /// Room for `additional` more keys (at most
    /// [`RESERVE_AT_MOST`](super::RESERVE_AT_MOST) ahead of time).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.hashes.reserve(additional.min(super::RESERVE_AT_MOST));
    }

    /// Adds a key, or refuses it as a repeat.
    pub(crate) fn insert(&mut self, key: KeyRef<'_>) -> Result<(), ValidationError> {
        if self.hashes.insert(self.hasher.hash_one(key)) {
            Ok(())
        } else {
            Err(ValidationError::DuplicateKey {
                operation: "batch write",
                key: key.to_string(),
            })
        }
    }
}

/// The set's own hasher: what it holds are hashes already (uniform, and
/// keyed at random), so they are their own hash.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is called (the set holds `u64`s); any other
        // input is folded in all the same.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyId;
    use entity_core::PrimaryKey;

    fn key(pk: &str, sk: &str) -> KeyId {
        KeyId::of(&PrimaryKey::<()>::new(
            "pk",
            pk.to_owned(),
            Some(("sk", sk.to_owned())),
        ))
    }

    #[test]
    fn a_repeated_key_is_refused_and_named() {
        let mut seen = SeenKeys::default();
        assert!(seen.insert(key("a", "1").borrowed()).is_ok());
        assert!(seen.insert(key("a", "2").borrowed()).is_ok());
        assert_eq!(
            seen.insert(key("a", "1").borrowed()),
            Err(ValidationError::DuplicateKey {
                operation: "batch write",
                key: "(a, 1)".into()
            })
        );
    }

    #[test]
    fn a_key_without_a_sort_key_is_another_key() {
        let mut seen = SeenKeys::default();
        assert!(seen.insert(key("a", "1").borrowed()).is_ok());
        let pk_only = KeyId::of(&PrimaryKey::<()>::new("pk", "a".to_owned(), None));
        assert!(seen.insert(pk_only.borrowed()).is_ok());
        assert!(seen.insert(pk_only.borrowed()).is_err());
    }
}
