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
        let sk = primary.sk.map(|sk| item.get(sk.attribute));
        Self::of_values(item.get(primary.pk.attribute), sk)
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
}
