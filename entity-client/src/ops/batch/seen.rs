//! The keys a batch write has named, to refuse a repeat: DynamoDB refuses a
//! request that names an item twice, and two puts of one key in chunks in
//! flight at once would land in no defined order.
//!
//! A streamed write of millions of items cannot keep every key, so the set
//! keeps a 64-bit hash of each (randomly keyed, per batch): about 10 bytes an
//! item where a key's text costs tens. Two different keys share a hash with
//! odds of about n²/2⁶⁵ (one in 3·10⁹ for 100,000 items): the later one is
//! then refused as a repeat, and reported like one, never dropped silently.

use crate::error::ValidationError;
use crate::keys::KeyId;
use std::collections::hash_map::RandomState;
use std::collections::HashSet;
use std::hash::BuildHasher;

/// The hashes of the keys named so far.
#[derive(Default)]
pub(crate) struct SeenKeys {
    hasher: RandomState,
    hashes: HashSet<u64>,
}

impl SeenKeys {
    /// Adds a key, or refuses it as a repeat.
    pub(crate) fn insert(&mut self, key: &KeyId) -> Result<(), ValidationError> {
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

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(seen.insert(&key("a", "1")).is_ok());
        assert!(seen.insert(&key("a", "2")).is_ok());
        assert_eq!(
            seen.insert(&key("a", "1")),
            Err(ValidationError::DuplicateKey {
                operation: "batch write",
                key: "(a, 1)".into()
            })
        );
    }
}
