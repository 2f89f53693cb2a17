//! The `Entity` trait that `#[derive(Entity)]` implements, and the key values
//! it hands to the client.

use crate::error::{DecodeError, EncodeError};
use crate::model::EntityModel;
use crate::Item;
use aws_sdk_dynamodb::types::AttributeValue;

/// A struct stored as DynamoDB items. Implement it with `#[derive(Entity)]`.
pub trait Entity: Sized {
    /// Names, keys, templates and indexes of the entity.
    const MODEL: &'static EntityModel;

    /// The full item: every field, every table and index key, and the
    /// identity and version attributes.
    fn to_item(&self) -> Result<Item, EncodeError>;

    /// Reads an item of this entity. Fails, without panicking, on an item of
    /// another entity or with a missing or mistyped attribute.
    fn from_item(item: Item) -> Result<Self, DecodeError>;

    /// The table key of this value.
    fn primary_key(&self) -> PrimaryKey;
}

/// A composed table key: what `GetItem` and `DeleteItem` need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimaryKey {
    /// The partition key attribute.
    pub pk_attribute: &'static str,
    /// The partition key value.
    pub pk: String,
    /// The sort key attribute and value, if the table has a sort key.
    pub sk: Option<(&'static str, String)>,
}

impl PrimaryKey {
    /// The key as an item fragment (`{pk: S, sk: S}`).
    pub fn to_item(&self) -> Item {
        let mut key = Item::with_capacity(2);
        key.insert(
            self.pk_attribute.to_owned(),
            AttributeValue::S(self.pk.clone()),
        );
        if let Some((attribute, value)) = &self.sk {
            key.insert((*attribute).to_owned(), AttributeValue::S(value.clone()));
        }
        key
    }
}
