//! Table keys inside one request: DynamoDB refuses a batch write or a
//! transaction that names an item twice, and a batch get reads each key
//! once. One identity for a key (owned, or borrowed from the item or key
//! that holds it), and one set of them, serve all four.

use crate::error::ValidationError;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{Entity, IndexModel, Item, PrimaryKey};
use std::collections::HashMap;
use std::fmt;

/// A table key's values. Every entity of a table keys it on the same
/// attributes, so the values alone say which item a request names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct KeyId {
    pk: String,
    sk: Option<String>,
}

impl KeyId {
    pub(crate) fn of<E>(key: &PrimaryKey<E>) -> Self {
        KeyRef::of(key).into_id()
    }

    /// The key of an item or key fragment, on a table keyed as `primary`;
    /// `None` when its key attributes are missing or neither strings nor
    /// numbers (a number-typed key).
    pub(crate) fn of_item(primary: &IndexModel, item: &Item) -> Option<Self> {
        KeyRef::of_item(primary, item).map(KeyRef::into_id)
    }

    /// The key's values, borrowed.
    pub(crate) fn borrowed(&self) -> KeyRef<'_> {
        KeyRef {
            pk: &self.pk,
            sk: self.sk.as_deref(),
        }
    }

    /// The key as key attributes of a table keyed as `primary`.
    pub(crate) fn into_item(self, primary: &IndexModel) -> Item {
        let value = |key: &entity_core::KeyModel, text: String| {
            if key.number {
                AttributeValue::N(text)
            } else {
                AttributeValue::S(text)
            }
        };
        let mut item = Item::with_capacity(2);
        item.insert(primary.pk.attribute.to_owned(), value(&primary.pk, self.pk));
        if let (Some(sk), Some(text)) = (primary.sk, self.sk) {
            item.insert(sk.attribute.to_owned(), value(&sk, text));
        }
        item
    }

    /// The key as `E`'s table key.
    pub(crate) fn into_key<E: Entity>(self) -> PrimaryKey<E> {
        let primary = &E::MODEL.primary;
        let sk = primary.sk.zip(self.sk).map(|(k, v)| (k.attribute, v));
        PrimaryKey::new(primary.pk.attribute, self.pk, sk)
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.borrowed().fmt(f)
    }
}

/// The values of a table key's attributes in `item`: the partition key's,
/// and the sort key's on a table with one (`Some(None)` when the item
/// lacks it).
pub(crate) fn table_key_values<'a>(
    primary: &IndexModel,
    item: &'a Item,
) -> (
    Option<&'a AttributeValue>,
    Option<Option<&'a AttributeValue>>,
) {
    let sk_attribute = primary.sk.map(|sk| sk.attribute);
    let gathered = Gathered::gather(
        item,
        Gathered::lengths([Some(primary.pk.attribute), sk_attribute]),
        |_| {},
    );
    let sk = sk_attribute.map(|attribute| gathered.get(item, attribute));
    (gathered.get(item, primary.pk.attribute), sk)
}

/// The attributes of an item whose names are as long as those sought
/// (key attributes), gathered in one pass over the item, which then finds
/// those by comparing names with the few gathered: no name is hashed (a
/// lookup hashes with the item's SipHash, which costs more than the pass
/// on the items entities write), and the pass takes no branch on a name
/// (an item iterates in an order of its own, so such a branch is hard to
/// predict). An item with more such names than there is room for is
/// looked up instead.
pub(crate) struct Gathered<'a> {
    /// The gathered attributes: the first `found` slots, when `found` is
    /// at most [`ROOM`](Self::ROOM) (the last slot is the pass's own).
    slots: [Option<(&'a String, &'a AttributeValue)>; Gathered::ROOM + 1],
    found: usize,
}

impl<'a> Gathered<'a> {
    /// How many attributes are gathered at most.
    const ROOM: usize = 8;

    /// The name lengths of `attributes`, as [`gather`](Self::gather)
    /// takes them: bit `n` for a name of `n` bytes, bit 63 for 63 and more.
    pub(crate) fn lengths<const N: usize>(attributes: [Option<&str>; N]) -> u64 {
        attributes
            .into_iter()
            .flatten()
            .fold(0, |lengths, attribute| lengths | Self::bit(attribute))
    }

    fn bit(name: &str) -> u64 {
        1 << name.len().min(63)
    }

    /// One pass over `item`, handing `visit` every attribute and gathering
    /// those whose names have one of the `lengths`.
    pub(crate) fn gather(
        item: &'a Item,
        lengths: u64,
        mut visit: impl FnMut((&'a String, &'a AttributeValue)),
    ) -> Self {
        // `ROOM` attributes and a last slot that every other one passes
        // through.
        let mut slots = [None; Self::ROOM + 1];
        let mut found = 0usize;
        for entry in item {
            visit(entry);
            slots[found.min(Self::ROOM)] = Some(entry);
            found += usize::from(lengths & Self::bit(entry.0) != 0);
        }
        Self { slots, found }
    }

    /// The value of `attribute` in `item` (the item gathered from).
    pub(crate) fn get(&self, item: &'a Item, attribute: &str) -> Option<&'a AttributeValue> {
        match self.slots.get(..self.found) {
            Some(gathered) if self.found <= Self::ROOM => gathered
                .iter()
                .flatten()
                .find(|(name, _)| *name == attribute)
                .map(|(_, value)| *value),
            _ => item.get(attribute),
        }
    }
}

/// A table key's values, borrowed from the item or key that holds them:
/// what a write hashes or compares without copying the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KeyRef<'a> {
    pk: &'a str,
    sk: Option<&'a str>,
}

impl<'a> KeyRef<'a> {
    /// A key of these values (`sk` on a table with a sort key).
    pub(crate) fn new(pk: &'a str, sk: Option<&'a str>) -> Self {
        Self { pk, sk }
    }

    /// The partition key's value, and the sort key's.
    pub(crate) fn values(self) -> (&'a str, Option<&'a str>) {
        (self.pk, self.sk)
    }

    pub(crate) fn of<E>(key: &'a PrimaryKey<E>) -> Self {
        Self {
            pk: &key.pk,
            sk: key.sk.as_ref().map(|(_, value)| value.as_str()),
        }
    }

    /// See [`KeyId::of_item`].
    pub(crate) fn of_item(primary: &IndexModel, item: &'a Item) -> Option<Self> {
        let (pk, sk) = table_key_values(primary, item);
        Self::of_values(pk, sk)
    }

    /// The key of a table key's values as an item holds them: `sk` is
    /// `None` on a table without a sort key, `Some(None)` when the item
    /// lacks it.
    pub(crate) fn of_values(
        pk: Option<&'a AttributeValue>,
        sk: Option<Option<&'a AttributeValue>>,
    ) -> Option<Self> {
        let text = |value: Option<&'a AttributeValue>| match value {
            Some(AttributeValue::S(text) | AttributeValue::N(text)) => Some(text.as_str()),
            _ => None,
        };
        let sk = match sk {
            Some(value) => Some(text(value)?),
            None => None,
        };
        Some(Self { pk: text(pk)?, sk })
    }

    /// The key, copied.
    pub(crate) fn into_id(self) -> KeyId {
        KeyId {
            pk: self.pk.to_owned(),
            sk: self.sk.map(str::to_owned),
        }
    }
}

impl fmt::Display for KeyRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sk {
            Some(sk) => write!(f, "({}, {sk})", self.pk),
            None => write!(f, "({})", self.pk),
        }
    }
}

/// The keys of one request, each with a value (the entity that named it).
#[derive(Debug)]
pub(crate) struct KeySet<V> {
    keys: HashMap<KeyId, V>,
}

impl<V> Default for KeySet<V> {
    fn default() -> Self {
        Self {
            keys: HashMap::new(),
        }
    }
}

impl<V> KeySet<V> {
    /// Adds a key; the key back when it is already in the set.
    pub(crate) fn insert(&mut self, key: KeyId, value: V) -> Result<(), KeyId> {
        match self.keys.entry(key) {
            std::collections::hash_map::Entry::Occupied(entry) => Err(entry.key().clone()),
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(value);
                Ok(())
            }
        }
    }

    /// Adds a key, or refuses it as a repeat in `operation`.
    pub(crate) fn insert_unique(
        &mut self,
        operation: &'static str,
        key: KeyId,
        value: V,
    ) -> Result<(), ValidationError> {
        self.insert(key, value)
            .map_err(|key| ValidationError::DuplicateKey {
                operation,
                key: key.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_and_named() {
        let key = |pk: &str, sk: &str| KeyId {
            pk: pk.into(),
            sk: Some(sk.into()),
        };
        let mut set = KeySet::default();
        assert!(set.insert_unique("transaction", key("a", "1"), ()).is_ok());
        assert!(set.insert_unique("transaction", key("a", "2"), ()).is_ok());
        let error = set.insert_unique("transaction", key("a", "1"), ());
        assert_eq!(
            error,
            Err(ValidationError::DuplicateKey {
                operation: "transaction",
                key: "(a, 1)".into()
            })
        );
    }

    fn text(value: &str) -> AttributeValue {
        AttributeValue::S(value.into())
    }

    const PRIMARY: IndexModel = IndexModel::table(
        entity_core::KeyModel::text("pk", &[], ""),
        Some(entity_core::KeyModel::text("sk", &[], "")),
    );

    #[test]
    fn the_table_key_is_found_among_names_of_its_length() {
        let mut item: Item = [
            ("pk", "p"),
            ("sk", "s"),
            ("id", "i"),
            ("x", "1"),
            ("ab", "2"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), text(value)))
        .collect();
        let (pk, sk) = table_key_values(&PRIMARY, &item);
        assert_eq!((pk, sk), (Some(&text("p")), Some(Some(&text("s")))));
        // Without its sort key: `Some(None)`.
        item.remove("sk");
        let (pk, sk) = table_key_values(&PRIMARY, &item);
        assert_eq!((pk, sk), (Some(&text("p")), Some(None)));
        // A table without a sort key reads none.
        let pk_only = IndexModel::table(PRIMARY.pk, None);
        assert_eq!(table_key_values(&pk_only, &item).1, None);
    }

    #[test]
    fn an_item_with_more_names_of_the_keys_length_than_fit_is_looked_up() {
        // Twenty two-letter names besides pk and sk: more than are gathered.
        let mut item: Item = (0..20u8)
            .map(|i| (format!("{}{}", char::from(b'a' + i), 'z'), text("other")))
            .collect();
        item.insert("pk".into(), text("p"));
        item.insert("sk".into(), text("s"));
        let gathered = Gathered::gather(&item, Gathered::lengths([Some("pk"), Some("sk")]), |_| {});
        assert!(gathered.found > Gathered::ROOM);
        assert_eq!(gathered.get(&item, "pk"), Some(&text("p")));
        assert_eq!(gathered.get(&item, "sk"), Some(&text("s")));
        assert_eq!(gathered.get(&item, "qq"), None);
        // Names of 63 bytes and more share one length bit.
        let long = "l".repeat(70);
        let item: Item = [(long.clone(), text("v")), ("l".repeat(64), text("w"))].into();
        let gathered = Gathered::gather(&item, Gathered::lengths([Some(long.as_str())]), |_| {});
        assert_eq!(gathered.get(&item, &long), Some(&text("v")));
    }
}
