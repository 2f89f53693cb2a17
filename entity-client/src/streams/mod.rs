//! DynamoDB Streams records decoded into typed changes of an entity or a
//! collection union: [`Change::Insert`], [`Change::Modify`],
//! [`Change::Remove`].
//!
//! A change is what the entity's reads would see change. Records of items
//! that are not the entity's are skipped (`Ok(None)`): other entities' items
//! in the same table, items of another version that no upgrade reads, unique
//! constraint sentinels and history snapshots (both carry identities of their
//! own), and, as reads do, soft-deleted items. So a soft delete (a `MODIFY`
//! that marks the item) decodes as [`Change::Remove`], a restore as
//! [`Change::Insert`], and a `MODIFY` whose old image is another entity's
//! and whose new one is this entity's (a migration that rewrote the
//! identity) as an insert. [`Decoder::include_deleted`] keeps soft-deleted
//! items. Expired items are not hidden: an item stays in the stream's view
//! until DynamoDB deletes it, which is a `REMOVE` record (from the service
//! principal `dynamodb.amazonaws.com`).
//!
//! **Stream view type.** Decoding an event needs the images that describe
//! it: `INSERT` the new image, `MODIFY` both, `REMOVE` the old one. Create
//! the table's stream with `NEW_AND_OLD_IMAGES`
//! ([`CreateTable::stream`](crate::CreateTable::stream)); a record without
//! the image its event needs (a `KEYS_ONLY` stream, or a `MODIFY` on a
//! `NEW_IMAGE` stream) is [`StreamError::MissingImage`]: keys alone cannot
//! say whose item changed, since the identity attribute is not in them.
//!
//! Sources: any [`StreamRecord`]. [`RecordImages`] is one (records you build
//! or receive some other way); the feature `streams` adds
//! `aws_sdk_dynamodbstreams::types::Record` and [`StreamReader`], the
//! feature `lambda` adds `aws_lambda_events`' DynamoDB `EventRecord`.
//!
//! ```
//! use entity_client::streams::{self, Change, RecordImages};
//! use entity_client::Entity;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(schema = "app")]
//! #[pk(task_id)]
//! struct Task { task_id: String, title: String }
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(schema = "app")]
//! #[pk(user_id)]
//! struct User { user_id: String }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let before = Task { task_id: "t1".into(), title: "Draft".into() };
//! let after = Task { title: "Ship".into(), ..before.clone() };
//! let records = [
//!     RecordImages::modify(before.to_item()?, after.to_item()?),
//!     RecordImages::insert(User { user_id: "u1".into() }.to_item()?), // another entity's item
//!     RecordImages::remove(after.to_item()?),
//! ];
//!
//! let change = streams::decode::<Task>(&records[0])?;
//! assert_eq!(change, Some(Change::Modify { old: before.clone(), new: after.clone() }));
//! assert_eq!(streams::decode::<Task>(&records[1])?, None);
//!
//! let changes: Vec<Change<Task>> = streams::decode_all(&records).collect::<Result<_, _>>()?;
//! assert_eq!(changes, [Change::Modify { old: before, new: after.clone() }, Change::Remove(after)]);
//! # Ok(()) }
//! ```

#[cfg(feature = "lambda")]
mod lambda;
#[cfg(feature = "streams")]
mod reader;
#[cfg(feature = "streams")]
mod sdk;

#[cfg(feature = "streams")]
#[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
pub use reader::{local_streams_client, StreamReader};

pub use crate::error::stream::{EventName, Image, StreamError};

use crate::error::Result;
use crate::ops::visibility::{Deleted, Shown, Visibility};
use entity_core::{Item, Readable};
use std::fmt;
use std::marker::PhantomData;

/// A change of an entity (or of a collection union's member) that one
/// stream record describes.
#[derive(Debug, Clone, PartialEq)]
pub enum Change<R> {
    /// The item appeared: created, restored after a soft delete, or
    /// rewritten as this entity.
    Insert(R),
    /// The item changed; both images are this entity's and visible.
    Modify {
        /// The item before.
        old: R,
        /// The item after.
        new: R,
    },
    /// The item went away: deleted, soft-deleted, expired (deleted by
    /// DynamoDB's TTL), or rewritten as something else.
    Remove(R),
}

impl<R> Change<R> {
    /// The item before the change (`None` for an insert).
    pub fn before(&self) -> Option<&R> {
        match self {
            Change::Insert(_) => None,
            Change::Modify { old, .. } | Change::Remove(old) => Some(old),
        }
    }

    /// The item after the change (`None` for a removal).
    pub fn after(&self) -> Option<&R> {
        match self {
            Change::Insert(new) | Change::Modify { new, .. } => Some(new),
            Change::Remove(_) => None,
        }
    }

    /// The item after the change, owned (`None` for a removal).
    pub fn into_after(self) -> Option<R> {
        match self {
            Change::Insert(new) | Change::Modify { new, .. } => Some(new),
            Change::Remove(_) => None,
        }
    }
}

/// One stream record, in the terms decoding needs: its event and images as
/// `aws-sdk-dynamodb` items. Implemented by [`RecordImages`], and with the
/// features `streams` and `lambda` by the records of those sources;
/// implement it for records of another source.
pub trait StreamRecord {
    /// The record's event, sequence number and images.
    fn images(&self) -> Result<RecordImages>;
}

/// A stream record's event and images.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordImages {
    /// What happened to the item.
    pub event: EventName,
    /// The record's sequence number, when known.
    pub sequence_number: Option<String>,
    /// The item before the change, when the record holds it.
    pub old_image: Option<Item>,
    /// The item after the change, when the record holds it.
    pub new_image: Option<Item>,
}

impl RecordImages {
    /// An `INSERT` of `new`.
    pub fn insert(new: Item) -> Self {
        Self::of(EventName::Insert, None, Some(new))
    }

    /// A `MODIFY` from `old` to `new`.
    pub fn modify(old: Item, new: Item) -> Self {
        Self::of(EventName::Modify, Some(old), Some(new))
    }

    /// A `REMOVE` of `old`.
    pub fn remove(old: Item) -> Self {
        Self::of(EventName::Remove, Some(old), None)
    }

    fn of(event: EventName, old_image: Option<Item>, new_image: Option<Item>) -> Self {
        Self {
            event,
            sequence_number: None,
            old_image,
            new_image,
        }
    }

    /// The image `image` of the record, failing when it lacks it.
    fn take(&mut self, image: Image) -> Result<Item, StreamError> {
        let slot = match image {
            Image::Old => &mut self.old_image,
            Image::New => &mut self.new_image,
        };
        slot.take().ok_or_else(|| StreamError::MissingImage {
            event: self.event,
            image,
            sequence_number: self.sequence_number.clone(),
        })
    }
}

impl StreamRecord for RecordImages {
    fn images(&self) -> Result<RecordImages> {
        Ok(self.clone())
    }
}

/// Decodes stream records as changes of `R`, an entity or a collection
/// union (whose decode picks the member by the identity attribute).
///
/// ```
/// # use entity_client::streams::{Decoder, Change, RecordImages};
/// # use entity_client::Entity;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(schema = "app", soft_delete)]
/// # #[pk(doc_id)]
/// # struct Doc { doc_id: String }
/// # fn main() -> entity_client::Result<()> {
/// let doc = Doc { doc_id: "d1".into() };
/// let mut deleted = doc.to_item()?;
/// let at = aws_sdk_dynamodb::types::AttributeValue::N("1700000000000".into());
/// deleted.insert("__deleted_at".into(), at); // what `client.delete(..)` writes
/// let soft_delete = RecordImages::modify(doc.to_item()?, deleted);
///
/// // Reads hide soft-deleted items, and so does the stream's view.
/// assert_eq!(Decoder::<Doc>::new().decode(&soft_delete)?, Some(Change::Remove(doc.clone())));
/// let with_deleted = Decoder::<Doc>::new().include_deleted(true);
/// assert_eq!(with_deleted.decode(&soft_delete)?, Some(Change::Modify { old: doc.clone(), new: doc }));
/// # Ok(()) }
/// ```
pub struct Decoder<R> {
    visibility: Visibility,
    read: PhantomData<fn() -> R>,
}

impl<R: Readable> Decoder<R> {
    /// A decoder that hides what reads hide (soft-deleted items).
    pub fn new() -> Self {
        Self::showing(Deleted::Hide)
    }

    /// Keeps soft-deleted items: a soft delete is then a
    /// [`Change::Modify`].
    pub fn include_deleted(self, include: bool) -> Self {
        Self::showing(if include {
            Deleted::Include
        } else {
            Deleted::Hide
        })
    }

    fn showing(deleted: Deleted) -> Self {
        // Expiry depends on the time of reading, not of the change: the
        // stream shows an expired item until DynamoDB's REMOVE.
        let shown = Shown {
            expired: true,
            deleted,
        };
        Self {
            visibility: Visibility::at::<R>(0, shown),
            read: PhantomData,
        }
    }

    /// The change `record` describes; `Ok(None)` when neither image is an
    /// item `R`'s reads would return (another entity's item, a sentinel, a
    /// snapshot, a soft-deleted item).
    pub fn decode(&self, record: &impl StreamRecord) -> Result<Option<Change<R>>> {
        let mut images = record.images()?;
        let old = match images.event {
            EventName::Insert => None,
            EventName::Modify | EventName::Remove => self.read(images.take(Image::Old)?)?,
        };
        let new = match images.event {
            EventName::Remove => None,
            EventName::Insert | EventName::Modify => self.read(images.take(Image::New)?)?,
        };
        Ok(match (old, new) {
            (None, None) => None,
            (None, Some(new)) => Some(Change::Insert(new)),
            (Some(old), None) => Some(Change::Remove(old)),
            (Some(old), Some(new)) => Some(Change::Modify { old, new }),
        })
    }

    /// The changes of a batch of records, in order, skipping records of
    /// other items; an undecodable record is an `Err` in its place.
    pub fn decode_all<'a, S>(
        &self,
        records: impl IntoIterator<Item = &'a S> + 'a,
    ) -> impl Iterator<Item = Result<Change<R>>> + 'a
    where
        R: 'a,
        S: StreamRecord + 'a,
    {
        let decoder = self.clone();
        records
            .into_iter()
            .filter_map(move |record| decoder.decode(record).transpose())
    }

    /// The image as `R`, if `R`'s reads would return it.
    fn read(&self, item: Item) -> Result<Option<R>> {
        if !self.visibility.shows(&item) {
            return Ok(None);
        }
        Ok(R::read(item)?)
    }
}

impl<R: Readable> Default for Decoder<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> Clone for Decoder<R> {
    fn clone(&self) -> Self {
        Self {
            visibility: self.visibility.clone(),
            read: PhantomData,
        }
    }
}

impl<R> fmt::Debug for Decoder<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("read", &std::any::type_name::<R>())
            .field("visibility", &self.visibility)
            .finish()
    }
}

/// The change `record` describes, as an entity or collection union `R`
/// reads it; `Ok(None)` for a record of an item `R` does not read. See the
/// [module](self) documentation.
pub fn decode<R: Readable>(record: &impl StreamRecord) -> Result<Option<Change<R>>> {
    Decoder::<R>::new().decode(record)
}

/// The changes of `R` in a batch of records, in order (records of other
/// items skipped): [`Decoder::decode_all`] with the default decoder.
pub fn decode_all<'a, R, S>(
    records: impl IntoIterator<Item = &'a S> + 'a,
) -> impl Iterator<Item = Result<Change<R>>> + 'a
where
    R: Readable + 'a,
    S: StreamRecord + 'a,
{
    Decoder::<R>::new().decode_all(records)
}
