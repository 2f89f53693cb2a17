//! The `Entity` trait that `#[derive(Entity)]` implements, and the key values
//! it hands to the client.

use crate::error::{DecodeError, EncodeError};
use crate::model::{EntityModel, IndexKind, IndexProjection};
use crate::{Item, ItemWriter};
use std::marker::PhantomData;

/// A struct stored as DynamoDB items. Implement it with `#[derive(Entity)]`.
pub trait Entity: Sized {
    /// Names, keys, templates and indexes of the entity.
    const MODEL: &'static EntityModel;

    /// Writes the full item into `item`: every field, every table and
    /// index key, and the identity and version attributes
    /// ([`to_item`](Self::to_item) is this item, finished).
    fn write_item(&self, item: &mut ItemWriter) -> Result<(), EncodeError>;

    /// Set by `#[derive(Entity)]`: what the client may assume of a derived
    /// impl ([`Derived`](crate::__private::Derived)). A hand-written
    /// implementation leaves the default: its items are read back and
    /// checked.
    #[doc(hidden)]
    const __DERIVED: crate::__private::Derived<Self> = crate::__private::Derived::HAND_WRITTEN;

    /// The full item: every field, every table and index key, and the
    /// identity and version attributes (what
    /// [`write_item`](Self::write_item) writes).
    fn to_item(&self) -> Result<Item, EncodeError> {
        let mut item = ItemWriter::new(Self::MODEL);
        self.write_item(&mut item)?;
        Ok(item.finish())
    }

    /// Reads an item of this entity. Fails, without panicking, on an item of
    /// another entity, of a version that is not the current one (unless
    /// `upgrade_from` reads it), or with a missing or mistyped attribute.
    fn from_item(item: Item) -> Result<Self, DecodeError>;

    /// The table key of this value.
    fn primary_key(&self) -> PrimaryKey<Self>;

    /// The fields a table key is composed of, as stored attributes, parsed
    /// back from the key: what an update that creates the item writes, so
    /// the new item holds its key fields. Empty for a key this entity did
    /// not compose.
    fn key_fields(key: &PrimaryKey<Self>) -> Item;

    /// The value of each unique constraint (`MODEL.managed.unique`, in
    /// order) as its sentinel stores it: the constraint's fields composed as
    /// key text (strings lowercased for a case-insensitive constraint), or
    /// `None` when an optional field of it is `None` (no sentinel).
    fn unique_values(&self) -> Vec<Option<String>> {
        Vec::new()
    }

    /// The size of this value's item as DynamoDB counts it against its
    /// 400 KB limit, with each attribute's share, largest first
    /// ([`crate::size`]). It sizes [`Entity::to_item`]'s item, so
    /// `#[entity(compress)]` fields count compressed; attributes the client
    /// adds on a write (managed timestamps and versions) are not in it.
    fn item_size(&self) -> Result<crate::size::ItemSize, EncodeError> {
        Ok(crate::size::item_size(&self.to_item()?))
    }
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
}

impl<E: Entity> PrimaryKey<E> {
    /// The key as an item fragment (`{pk: S, sk: S}`; `N` for a key the
    /// entity stores as a number).
    pub fn to_item(&self) -> Item {
        let mut key = Item::with_capacity(2);
        let value = |attribute: &str, text: &String| {
            crate::__private::key_value(E::MODEL, attribute, text.clone())
        };
        key.insert(
            self.pk_attribute.to_owned(),
            value(self.pk_attribute, &self.pk),
        );
        if let Some((attribute, text)) = &self.sk {
            key.insert((*attribute).to_owned(), value(attribute, text));
        }
        key
    }
}

/// What a Query returns: an entity, a collection union, or an index view.
///
/// Every entity is `Readable` (its queries keep only its own items, by the
/// identity attribute); `#[derive(Collection)]` implements it for unions,
/// which keep the items of their members; the derive implements it for the
/// view of each projected index ([`IndexView`](crate::IndexView)).
pub trait Readable: Sized {
    /// The entity or collection name, for errors.
    const TYPE_NAME: &'static str;

    /// What a client's scope decides the read by: the entity itself, a
    /// view's entity, the collection itself. A client that reads `Task`
    /// reads `Task`'s views.
    type Scoped: Readable;

    /// The identity attribute and the value a server-side filter keeps, if
    /// any.
    fn identity_filter() -> Option<(&'static str, &'static str)>;

    /// Reads an item; `Ok(None)` for an item that does not belong here
    /// (another entity's, or another version's that no upgrade reads).
    fn read(item: Item) -> Result<Option<Self>, DecodeError>;

    /// Reads an item, failing on one that does not belong here with the
    /// reason (a query's `.strict(true)`).
    fn read_strict(item: Item) -> Result<Self, DecodeError>;

    /// Every key attribute these items may hold.
    fn key_attributes() -> Vec<&'static str>;

    /// The key attributes stored as numbers (`N`), whose query values are
    /// sent as numbers.
    fn number_key_attributes() -> Vec<&'static str> {
        Vec::new()
    }

    /// The lifecycle declarations of the entities read (TTL, soft delete):
    /// the client hides expired and deleted items by them.
    fn lifecycles() -> Vec<&'static crate::lifecycle::LifecycleModel> {
        Vec::new()
    }

    /// The kind of the physical index `index_name` (the client refuses a
    /// consistent read of a global index before sending); `None` when it
    /// is not known here.
    fn index_kind(index_name: &str) -> Option<IndexKind> {
        let _ = index_name;
        None
    }

    /// What the physical index `index_name` projects (the client refuses
    /// to read whole entities from an index that holds less); `None` when
    /// it is not known here.
    fn index_projection(index_name: &str) -> Option<IndexProjection> {
        let _ = index_name;
        None
    }
}

impl<E: Entity> Readable for E {
    const TYPE_NAME: &'static str = E::MODEL.name;
    type Scoped = E;

    fn identity_filter() -> Option<(&'static str, &'static str)> {
        Some((E::MODEL.identity_attribute, E::MODEL.name))
    }

    fn read(item: Item) -> Result<Option<Self>, DecodeError> {
        crate::__private::skip_foreign(E::from_item(item))
    }

    fn read_strict(item: Item) -> Result<Self, DecodeError> {
        E::from_item(item)
    }

    fn key_attributes() -> Vec<&'static str> {
        E::MODEL.key_attributes()
    }

    fn number_key_attributes() -> Vec<&'static str> {
        E::MODEL
            .key_attributes()
            .into_iter()
            .filter(|attribute| E::MODEL.is_number_key(attribute))
            .collect()
    }

    fn lifecycles() -> Vec<&'static crate::lifecycle::LifecycleModel> {
        vec![&E::MODEL.lifecycle]
    }

    fn index_kind(index_name: &str) -> Option<IndexKind> {
        E::MODEL
            .indexes
            .iter()
            .find(|index| index.index_name == Some(index_name))
            .map(|index| index.kind)
    }

    fn index_projection(index_name: &str) -> Option<IndexProjection> {
        E::MODEL
            .indexes
            .iter()
            .find(|index| index.index_name == Some(index_name))
            .map(|index| index.projection)
    }
}
