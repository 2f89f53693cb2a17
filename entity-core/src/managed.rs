//! Fields the client writes itself: timestamps, generated ids, the
//! optimistic-lock version, and unique constraints.
//!
//! `#[derive(Entity)]` describes them in [`EntityModel::managed`]; the client
//! fills them on every write path, so application code never sets an
//! `updated_at` or bumps a version by hand.
//!
//! ```
//! use entity_core::{Entity, EpochMillis};
//!
//! #[derive(Entity, Debug)]
//! #[entity(schema = "shop", unique(email, case_insensitive))]
//! #[pk(customer_id)]
//! struct Customer {
//!     #[entity(generate = "ulid")]
//!     customer_id: String,
//!     email: String,
//!     #[entity(version)]
//!     version: u64,
//!     #[entity(created_at)]
//!     created_at: EpochMillis,
//!     #[entity(updated_at)]
//!     updated_at: EpochMillis,
//! }
//!
//! let managed = &Customer::MODEL.managed;
//! assert_eq!(managed.version, Some("version"));
//! assert_eq!(managed.unique[0].name, "email");
//! // The sentinel value: the key text of the folded email.
//! let lookup = Customer::by_email("Ada@Example.com");
//! assert_eq!(lookup.value(), "ada@example.com");
//! ```
//!
//! [`EntityModel::managed`]: crate::EntityModel::managed

use crate::attr::{AttributeError, FromAttribute, ToAttribute};
use crate::Entity;
use aws_sdk_dynamodb::types::AttributeValue;
use std::fmt;
use std::marker::PhantomData;
use std::time::{SystemTime, UNIX_EPOCH};

/// The fields of an entity that the client manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagedModel {
    /// `#[entity(created_at)]`: set once, when the item is created.
    pub created_at: Option<TimestampModel>,
    /// `#[entity(updated_at)]`: set on every write.
    pub updated_at: Option<TimestampModel>,
    /// `#[entity(version)]`: the attribute of the optimistic-lock version.
    pub version: Option<&'static str>,
    /// `#[entity(generate = "ulid")]` fields: filled when empty on a write.
    pub generated: &'static [GeneratedModel],
    /// `#[entity(unique(...))]` constraints, in declaration order.
    pub unique: &'static [UniqueModel],
}

impl ManagedModel {
    /// No managed fields (what an entity without any declares).
    pub const NONE: Self = Self {
        created_at: None,
        updated_at: None,
        version: None,
        generated: &[],
        unique: &[],
    };

    /// Whether the entity declares nothing the client must manage (a
    /// `const fn`: the client decides it once per entity, at compile time).
    pub const fn is_empty(&self) -> bool {
        self.created_at.is_none()
            && self.updated_at.is_none()
            && self.version.is_none()
            && self.generated.is_empty()
            && self.unique.is_empty()
    }
}

/// A timestamp field and how a clock reading is stored in it.
#[derive(Clone, Copy)]
pub struct TimestampModel {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute name.
    pub attribute: &'static str,
    /// The attribute value of a clock reading, in the field's type.
    pub at: fn(SystemTime) -> AttributeValue,
}

impl TimestampModel {
    /// The attribute value for `now`.
    pub fn value(&self, now: SystemTime) -> AttributeValue {
        (self.at)(now)
    }
}

impl fmt::Debug for TimestampModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimestampModel")
            .field("field", &self.field)
            .field("attribute", &self.attribute)
            .finish_non_exhaustive()
    }
}

// Two models are the same field; the conversion follows from its type.
impl PartialEq for TimestampModel {
    fn eq(&self, other: &Self) -> bool {
        (self.field, self.attribute) == (other.field, other.attribute)
    }
}

impl Eq for TimestampModel {}

/// A field filled with a new id when it is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratedModel {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute name.
    pub attribute: &'static str,
    /// What kind of id.
    pub kind: IdKind,
}

/// The kinds of generated ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// A ULID: 26 Crockford base-32 characters that sort by creation time
    /// (`01HX5ZZKBKACTAV9WEVGEMMVRZ`).
    Ulid,
    /// A random (v4) UUID in lowercase hyphenated form.
    Uuid,
}

/// One unique constraint: no two items of the entity hold the same values
/// of these fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueModel {
    /// The constraint's name (`email`, or the fields joined by `_`), which
    /// names the lookup (`Customer::by_email`).
    pub name: &'static str,
    /// The Rust fields, in order.
    pub fields: &'static [&'static str],
    /// Their attributes, in order.
    pub attributes: &'static [&'static str],
    /// Whether values are compared case-insensitively (strings are
    /// lowercased before they are compared).
    pub case_insensitive: bool,
}

/// A type that can hold a timestamp the client writes: chrono's
/// `DateTime<Utc>`, time's `OffsetDateTime`, [`EpochSeconds`],
/// [`EpochMillis`], and `Option`s of these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a timestamp the client writes",
    label = "this field is `created_at` or `updated_at`, so its type must implement `Timestamp`",
    note = "use `chrono::DateTime<Utc>` (feature `chrono`), `time::OffsetDateTime` (feature `time`), `entity_core::EpochSeconds` or `entity_core::EpochMillis`, or an `Option` of one"
)]
pub trait Timestamp: ToAttribute + FromAttribute {
    /// The value of a clock reading.
    fn at(now: SystemTime) -> Self;

    /// The attribute value of a clock reading (what the model stores).
    fn attribute_at(now: SystemTime) -> AttributeValue {
        match Self::at(now).to_attribute() {
            Ok(Some(value)) => value,
            // A clock reading always converts; `NULL` keeps this total.
            _ => AttributeValue::Null(true),
        }
    }
}

impl<T: Timestamp> Timestamp for Option<T> {
    fn at(now: SystemTime) -> Self {
        Some(T::at(now))
    }
}

#[cfg(feature = "chrono")]
impl Timestamp for chrono::DateTime<chrono::Utc> {
    fn at(now: SystemTime) -> Self {
        now.into()
    }
}

#[cfg(feature = "time")]
impl Timestamp for time::OffsetDateTime {
    fn at(now: SystemTime) -> Self {
        now.into()
    }
}

/// Signed distance of `now` from the Unix epoch in `unit`s per second.
fn since_epoch(now: SystemTime, per_second: i128) -> i64 {
    let nanos = match now.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    };
    let value = nanos.div_euclid(1_000_000_000 / per_second);
    value.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

macro_rules! epoch_type {
    ($(#[$doc:meta])* $name:ident, $per_second:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub i64);

        impl Timestamp for $name {
            fn at(now: SystemTime) -> Self {
                Self(since_epoch(now, $per_second))
            }
        }

        impl ToAttribute for $name {
            fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
                self.0.to_attribute()
            }
        }

        impl FromAttribute for $name {
            fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
                i64::from_attribute(value).map(Self)
            }
        }

        impl crate::KeyPart for $name {
            fn encode_key(&self, out: &mut String) {
                self.0.encode_key(out)
            }
            fn key_len_hint(&self) -> usize {
                self.0.key_len_hint()
            }
            fn decode_key(text: &str) -> Result<Self, crate::KeyPartError> {
                i64::decode_key(text).map(Self)
            }
        }

    };
}

epoch_type!(
    /// Seconds since the Unix epoch, stored as a number (`N`): the form
    /// DynamoDB's TTL reads.
    EpochSeconds,
    1
);
epoch_type!(
    /// Milliseconds since the Unix epoch, stored as a number (`N`).
    EpochMillis,
    1000
);

/// An integer type that can be an optimistic-lock version
/// (`#[entity(version)]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an optimistic-lock version",
    label = "this field is `#[entity(version)]`, so its type must be an unsigned or signed integer of 32 or 64 bits",
    note = "use `u32`, `u64`, `i32` or `i64`"
)]
pub trait LockVersion: ToAttribute + FromAttribute {}

impl LockVersion for u32 {}
impl LockVersion for u64 {}
impl LockVersion for i32 {}
impl LockVersion for i64 {}

/// A type a generated id is stored in (`#[entity(generate = "ulid")]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a generated id",
    label = "this field is `#[entity(generate = ...)]`, so its type must be `String`",
    note = "generated ids are text; an empty `String` is replaced by a new id on create"
)]
pub trait GeneratedId: ToAttribute + FromAttribute {}

impl GeneratedId for String {}

/// A lookup of one item by a unique constraint's value
/// (`Customer::by_email("ada@example.com")`): the client reads the
/// constraint's sentinel, then the item it names, both strongly consistent.
pub struct UniqueKey<E> {
    constraint: usize,
    value: String,
    entity: PhantomData<fn() -> E>,
}

impl<E: Entity> UniqueKey<E> {
    /// The lookup of value `value` (as the generated `by_*` functions compose
    /// it) of constraint number `constraint` of `E`.
    #[doc(hidden)]
    pub fn new(constraint: usize, value: String) -> Self {
        Self {
            constraint,
            value,
            entity: PhantomData,
        }
    }

    /// The constraint.
    pub fn constraint(&self) -> &'static UniqueModel {
        &E::MODEL.managed.unique[self.constraint]
    }

    /// The composed value, as the sentinel stores it.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The lookup of this value within `tenant`: a tenant entity's lookups
    /// (`Customer::by_email(..)`) are tenant-free, and a tenant client
    /// completes them with its own tenant; `client.cross_tenant()` takes
    /// them completed here.
    ///
    /// ```
    /// use entity_core::Entity;
    ///
    /// #[derive(Entity)]
    /// #[entity(schema = "app", tenant = tenant_id, unique(email))]
    /// #[pk(tenant_id)]
    /// #[sk(id)]
    /// struct Customer { tenant_id: String, id: String, email: String }
    ///
    /// let free = Customer::by_email("ada@example.com");
    /// assert!(free.is_tenant_free());
    /// let acme = free.for_tenant("acme");
    /// assert!(!acme.is_tenant_free());
    /// assert_eq!(acme.value(), "acme#ada@example.com");
    /// ```
    pub fn for_tenant(&self, tenant: &str) -> Self {
        Self::new(
            self.constraint,
            crate::tenant::fill_tenant(&self.value, tenant),
        )
    }

    /// Whether the value still lacks its tenant (a tenant entity's lookup,
    /// not yet completed).
    pub fn is_tenant_free(&self) -> bool {
        crate::tenant::has_tenant_hole(&self.value)
    }
}

impl<E> Clone for UniqueKey<E> {
    fn clone(&self) -> Self {
        Self {
            constraint: self.constraint,
            value: self.value.clone(),
            entity: PhantomData,
        }
    }
}

impl<E: Entity> fmt::Debug for UniqueKey<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniqueKey")
            .field("entity", &E::MODEL.name)
            .field("constraint", &self.constraint().name)
            .field("value", &self.value)
            .finish()
    }
}

/// An entity with no unique constraint: a write of it needs no sentinel, so
/// it can go in a batch, or be put or deleted in a transaction, without
/// reading the item first. `#[derive(Entity)]` implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has unique constraints, so this write cannot keep their sentinels",
    label = "a write of this entity must move its unique sentinels",
    note = "use `create`, `put`, `upsert`, `delete` or `remove` of the client (`client.tenant(..)` for a tenant entity), each of which reads what it needs and writes the sentinels in one transaction, or `transact_write().create(..)`"
)]
pub trait WithoutUnique: Entity {}

/// An entity with no optimistic-lock version: a write of it needs no
/// condition, so it can go in a batch. `#[derive(Entity)]` implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has an `#[entity(version)]` field, so a batch cannot check its version",
    label = "BatchWriteItem takes no conditions",
    note = "write versioned entities with `put`/`update` of the client (`client.tenant(..)` for a tenant entity) or in a `transact_write()`, which condition on the version"
)]
pub trait WithoutVersion: Entity {}

/// An entity that does not soft-delete: its delete is a DeleteItem, so it
/// can go in a batch or a transaction as one. `#[derive(Entity)]`
/// implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` soft-deletes (`#[entity(soft_delete)]`): a delete here would remove it for good",
    label = "its delete marks the item deleted, which only `client.delete(..)` does",
    note = "mark it deleted with `client.delete(..)`, or call `.purge(..)` here to delete it for good"
)]
pub trait WithoutSoftDelete: Entity {}
