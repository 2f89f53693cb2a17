//! Write sharding: a partition key spread over `N` partitions by a suffix
//! that is a function of the item, so a read by key finds its shard and a
//! query reads every shard.
//!
//! **The hash is part of the stored data.** A shard is
//! `fnv1a64(bytes) % N` over the UTF-8 bytes of the item's key text (see
//! [`ShardSpec::shard_of`] and [`ShardSpec::shard_of_item`] for which
//! text). FNV-1a 64 (offset basis `0xcbf29ce484222325`, prime
//! `0x100000001b3`) is written here and never changes: a different hash,
//! or a different `N`, would put existing items in shards their keys no
//! longer point at, and gets, updates and deletes would miss them.

use super::{KeyError, KeyReader};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 over bytes fed in pieces (the same as over their
/// concatenation).
#[derive(Debug, Clone, Copy)]
struct Fnv1a64(u64);

impl Fnv1a64 {
    fn new() -> Self {
        Self(FNV_OFFSET)
    }

    fn write(mut self, bytes: &[u8]) -> Self {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
        self
    }
}

/// FNV-1a 64 of `bytes`: the stable hash shards are chosen by.
///
/// ```
/// use entity_core::key::fnv1a64;
///
/// // The published test vectors.
/// assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
/// assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
/// assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
/// ```
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    Fnv1a64::new().write(bytes).0
}

/// How a sharded partition key is spread: the number of shards and the
/// suffix each shard's key ends with (`#shard_7` in the default format,
/// `#SHARD#7` after a custom format).
///
/// ```
/// use entity_core::key::ShardSpec;
///
/// let spec = ShardSpec { count: 10, label: "#shard_", width: 1 };
/// assert_eq!(spec.key("$app#v1#task#status_Open", 7), "$app#v1#task#status_Open#shard_7");
/// assert_eq!(spec.split("$app#v1#task#status_Open#shard_7"), Some(("$app#v1#task#status_Open", 7)));
/// let shard = spec.shard_of("$app#v1#task#taskid_t-1");
/// assert!(shard < 10);
/// assert_eq!(shard, spec.shard_of("$app#v1#task#taskid_t-1")); // stable
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShardSpec {
    /// The number of shards, 2 to 256.
    pub count: u16,
    /// The text between the partition key and the shard number.
    pub label: &'static str,
    /// The shard number's width, zero-padded (`0`: unpadded).
    pub width: u8,
}

impl ShardSpec {
    /// The shard of an item of a sharded table partition key: by its sort
    /// key text.
    pub fn shard_of(&self, sk: &str) -> u16 {
        self.reduce(Fnv1a64::new().write(sk.as_bytes()))
    }

    /// The shard of an item in a sharded index partition: by its table key,
    /// `pk + "\0" + sk` (the sort key text empty when the table has none).
    pub fn shard_of_item(&self, pk: &str, sk: &str) -> u16 {
        let hash = Fnv1a64::new()
            .write(pk.as_bytes())
            .write(&[0])
            .write(sk.as_bytes());
        self.reduce(hash)
    }

    fn reduce(&self, hash: Fnv1a64) -> u16 {
        let count = u64::from(self.count.max(1));
        // The remainder is below `count`, itself a `u16`.
        u16::try_from(hash.0 % count).unwrap_or(0)
    }

    /// Appends shard `shard`'s suffix (taken modulo the count).
    pub fn push_suffix(&self, key: &mut String, shard: u16) {
        use std::fmt::Write as _;
        let shard = shard % self.count.max(1);
        key.push_str(self.label);
        let width = usize::from(self.width);
        // Writing to a `String` cannot fail.
        let _ = write!(key, "{shard:0width$}");
    }

    /// Shard `shard`'s key of the partition whose unsharded text is `base`.
    pub fn key(&self, base: &str, shard: u16) -> String {
        let mut key = String::with_capacity(base.len() + self.label.len() + 3);
        key.push_str(base);
        self.push_suffix(&mut key, shard);
        key
    }

    /// The unsharded text and the shard of a sharded key, when it ends in
    /// a suffix of this spec (canonical digits, a shard below the count).
    pub fn split<'k>(&self, key: &'k str) -> Option<(&'k str, u16)> {
        let at = key.rfind(self.label)?;
        let digits = &key[at + self.label.len()..];
        let shard = self.parse_number(digits)?;
        Some((&key[..at], shard))
    }

    /// The digits of a shard number, as [`push_suffix`](Self::push_suffix)
    /// writes them.
    fn parse_number(&self, digits: &str) -> Option<u16> {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let shard: u16 = digits.parse().ok()?;
        let canonical = format!("{shard:0width$}", width = usize::from(self.width));
        (shard < self.count && canonical == digits).then_some(shard)
    }
}

impl KeyReader<'_> {
    /// Consumes a shard suffix (`#shard_07`), which must end the key, and
    /// returns the shard number.
    pub fn shard(&mut self, spec: &ShardSpec) -> Result<u16, KeyError> {
        self.literal(spec.label)?;
        match spec.parse_number(self.rest) {
            Some(shard) => {
                self.rest = "";
                Ok(shard)
            }
            None => Err(self.error(format!(
                "`{}` is not a shard number below {}",
                self.rest, spec.count
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: ShardSpec = ShardSpec {
        count: 100,
        label: "#shard_",
        width: 2,
    };

    #[test]
    fn suffixes_round_trip_and_refuse_non_canonical_digits() {
        assert_eq!(SPEC.key("p", 7), "p#shard_07");
        assert_eq!(SPEC.split("p#shard_07"), Some(("p", 7)));
        assert_eq!(SPEC.split("p#shard_7"), None);
        assert_eq!(SPEC.split("p#shard_100"), None);
        assert_eq!(SPEC.split("p#shard_+1"), None);
        let mut reader = KeyReader::new("E", "pk", "p#shard_42");
        reader.literal("p").unwrap();
        assert_eq!(reader.shard(&SPEC).unwrap(), 42);
        reader.finish().unwrap();
    }

    #[test]
    fn pieces_hash_as_their_concatenation() {
        let spec = ShardSpec {
            count: 256,
            label: "#SHARD#",
            width: 0,
        };
        let joined = Fnv1a64::new().write(b"pk\0sk").0;
        assert_eq!(spec.shard_of_item("pk", "sk"), (joined % 256) as u16);
        assert_eq!(fnv1a64(b"pk\0sk"), joined);
    }
}
