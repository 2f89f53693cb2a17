//! The lifecycle of an entity's items: time to live, soft delete and version
//! history, as `#[derive(Entity)]` declares them in
//! [`EntityModel::lifecycle`](crate::EntityModel::lifecycle).
//!
//! The client reads this: it enables TTL on the table, hides expired and
//! soft-deleted items from reads, marks items deleted instead of deleting
//! them, and writes a snapshot of every version.

use aws_sdk_dynamodb::types::AttributeValue;
use std::fmt;
use std::time::SystemTime;

/// The lifecycle declarations of an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LifecycleModel {
    /// `#[entity(ttl)]` on a field: when DynamoDB may delete the item.
    pub ttl: Option<TtlModel>,
    /// `#[entity(soft_delete)]`: `delete` marks the item deleted.
    pub soft_delete: Option<SoftDeleteModel>,
    /// `#[entity(history)]`: every write also stores a snapshot of the new
    /// version at `<sk><separator><version>`.
    pub history: Option<HistoryModel>,
}

impl LifecycleModel {
    /// No lifecycle declarations.
    pub const NONE: Self = Self {
        ttl: None,
        soft_delete: None,
        history: None,
    };
}

/// The time-to-live field: an attribute of epoch seconds (`N`), which
/// DynamoDB's TTL reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlModel {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute name (the table's TTL attribute).
    pub attribute: &'static str,
    /// `#[entity(ttl(after = "30d"))]`: the client sets the field to now plus
    /// this many seconds on every write (a sliding expiry).
    pub after: Option<u64>,
}

/// Soft delete: `delete` sets the deletion time and drops the item's
/// secondary index keys; reads skip deleted items.
#[derive(Clone, Copy)]
pub struct SoftDeleteModel {
    /// The attribute holding the deletion time (a `#[entity(deleted_at)]`
    /// field's, or [`DELETED_AT_ATTRIBUTE`]).
    pub attribute: &'static str,
    /// The attribute value of a clock reading, in the field's type (epoch
    /// milliseconds for the default attribute).
    pub at: fn(SystemTime) -> AttributeValue,
    /// `soft_delete(keep_unique)`: a deleted item keeps its unique values
    /// (otherwise they are freed on delete and taken again on restore).
    pub keep_unique: bool,
    /// `soft_delete(expire_after = "30d")`: a deleted item's TTL is set this
    /// many seconds after the deletion (needs a TTL field).
    pub expire_after: Option<u64>,
}

impl fmt::Debug for SoftDeleteModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SoftDeleteModel")
            .field("attribute", &self.attribute)
            .field("keep_unique", &self.keep_unique)
            .field("expire_after", &self.expire_after)
            .finish_non_exhaustive()
    }
}

// The conversion follows from the attribute's type.
impl PartialEq for SoftDeleteModel {
    fn eq(&self, other: &Self) -> bool {
        (self.attribute, self.keep_unique, self.expire_after)
            == (other.attribute, other.keep_unique, other.expire_after)
    }
}

impl Eq for SoftDeleteModel {}

/// The attribute a soft-deleted item records its deletion time in, when the
/// entity declares no `#[entity(deleted_at)]` field.
pub const DELETED_AT_ATTRIBUTE: &str = "__deleted_at";

/// Version history: a snapshot item per version, beside the live item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryModel {
    /// Between the live item's sort key and the version (`@` by default).
    pub separator: &'static str,
    /// `history(keep = 10)`: only the last this many snapshots are kept.
    pub keep: Option<u32>,
    /// `history(expire_after = "90d")`: snapshots get a TTL this many seconds
    /// after they are written (needs a TTL field).
    pub expire_after: Option<u64>,
}

/// The digits of a snapshot's version in its sort key
/// (`<sk><separator>0000000007`): ten, so that versions sort as text.
pub const SNAPSHOT_VERSION_DIGITS: usize = 10;

impl HistoryModel {
    /// Whether a sort key ends as a snapshot's does (the separator and
    /// ten digits): an item of the entity with that key would share it with
    /// the snapshot of another item's version.
    pub fn is_snapshot_sk(&self, sk: &str) -> bool {
        let Some(split) = sk.len().checked_sub(SNAPSHOT_VERSION_DIGITS) else {
            return false;
        };
        // Ten ASCII digits at the end: `split` is a character boundary.
        sk.as_bytes()[split..].iter().all(u8::is_ascii_digit)
            && sk[..split].ends_with(self.separator)
    }
}

/// A type a TTL field can have: stored as epoch seconds (`N`) whatever the
/// Rust type. [`EpochSeconds`](crate::EpochSeconds), chrono's
/// `DateTime<Utc>`, time's `OffsetDateTime`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a time-to-live field",
    label = "this field is `#[entity(ttl)]`, so its type must implement `TtlValue`",
    note = "use `entity_core::EpochSeconds`, `chrono::DateTime<Utc>` (feature `chrono`) or `time::OffsetDateTime` (feature `time`), or an `Option` of one; DynamoDB reads TTL as epoch seconds"
)]
pub trait TtlValue: Sized {
    /// Seconds since the Unix epoch.
    fn to_epoch_seconds(&self) -> i64;
    /// The value at `seconds` since the Unix epoch.
    fn from_epoch_seconds(seconds: i64) -> Option<Self>;
}

impl TtlValue for crate::EpochSeconds {
    fn to_epoch_seconds(&self) -> i64 {
        self.0
    }
    fn from_epoch_seconds(seconds: i64) -> Option<Self> {
        Some(Self(seconds))
    }
}

#[cfg(feature = "chrono")]
impl TtlValue for chrono::DateTime<chrono::Utc> {
    fn to_epoch_seconds(&self) -> i64 {
        self.timestamp()
    }
    fn from_epoch_seconds(seconds: i64) -> Option<Self> {
        chrono::DateTime::from_timestamp(seconds, 0)
    }
}

#[cfg(feature = "time")]
impl TtlValue for time::OffsetDateTime {
    fn to_epoch_seconds(&self) -> i64 {
        self.unix_timestamp()
    }
    fn from_epoch_seconds(seconds: i64) -> Option<Self> {
        time::OffsetDateTime::from_unix_timestamp(seconds).ok()
    }
}
