//! The `Entity` trait that `#[derive(Entity)]` implements, and the key values
//! it hands to the client.

use crate::error::{DecodeError, EncodeError};
use crate::model::EntityModel;
use crate::Item;
use aws_sdk_dynamodb::types::AttributeValue;
use std::marker::PhantomData;

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
    fn primary_key(&self) -> PrimaryKey<Self>;
}

/// A composed table key of entity `E`: what `GetItem` and `DeleteItem` need.
pub struct PrimaryKey<E> {
    /// The partition key attribute.
    pub pk_attribute: &'static str,
    /// The partition key value.
    pub pk: String,
    /// The sort key attribute and value, if the table has a sort key.
    pub sk: Option<(&'static str, String)>,
    entity: PhantomData<fn() -> E>,
}

impl<E> Clone for PrimaryKey<E> {
    fn clone(&self) -> Self {
        Self::new(self.pk_attribute, self.pk.clone(), self.sk.clone())
    }
}

impl<E> PartialEq for PrimaryKey<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.pk_attribute, &self.pk, &self.sk) == (other.pk_attribute, &other.pk, &other.sk)
    }
}

impl<E> Eq for PrimaryKey<E> {}

impl<E> std::hash::Hash for PrimaryKey<E> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.pk_attribute, &self.pk, &self.sk).hash(state)
    }
}

impl<E> std::fmt::Debug for PrimaryKey<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("PrimaryKey");
        s.field(self.pk_attribute, &self.pk);
        if let Some((attribute, value)) = &self.sk {
            s.field(attribute, value);
        }
        s.finish()
    }
}

impl<E> PrimaryKey<E> {
    /// A key from its composed values.
    pub fn new(pk_attribute: &'static str, pk: String, sk: Option<(&'static str, String)>) -> Self {
        Self {
            pk_attribute,
            pk,
            sk,
            entity: PhantomData,
        }
    }

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
