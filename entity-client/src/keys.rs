//! Table keys inside one request: DynamoDB refuses a batch write or a
//! transaction that names an item twice, and a batch get reads each key
//! once. One identity for a key, and one set of them, serve all four.

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
        Self {
            pk: key.pk.clone(),
            sk: key.sk.as_ref().map(|(_, value)| value.clone()),
        }
    }

    /// The key of an item or key fragment, on a table keyed as `primary`;
    /// `None` when its key attributes are missing or neither strings nor
    /// numbers (a number-typed key).
    pub(crate) fn of_item(primary: &IndexModel, item: &Item) -> Option<Self> {
        let text = |attribute: &str| match item.get(attribute) {
            Some(AttributeValue::S(value) | AttributeValue::N(value)) => Some(value.clone()),
            _ => None,
        };
        let sk = match primary.sk {
            Some(sk) => Some(text(sk.attribute)?),
            None => None,
        };
        Some(Self {
            pk: text(primary.pk.attribute)?,
            sk,
        })
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
        match &self.sk {
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

    /// The value a key was added with.
    pub(crate) fn get(&self, key: &KeyId) -> Option<&V> {
        self.keys.get(key)
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
