//! Typed field handles.

use crate::attr::{AttributeError, ToAttribute};
use aws_sdk_dynamodb::types::AttributeValue;
use std::fmt;
use std::marker::PhantomData;

/// A field of entity `E` holding a `T`, stored in one attribute. `M` is its
/// role: [`Plain`], [`TableKeyComposite`], [`Managed`], [`UniqueField`], or
/// a generated marker for index key composites that change together.
pub struct Attr<E, T, M = Plain> {
    name: &'static str,
    marker: Types<E, T, M>,
}

/// Carries the handle's types without owning values of them.
type Types<E, T, M> = PhantomData<fn() -> (E, T, M)>;

impl<E, T, M> Attr<E, T, M> {
    /// A handle on attribute `name` (generated code calls this through
    /// `__private::attr`; users get handles from `Entity::fields()`, whose
    /// roles keep key composites from being set).
    pub(crate) const fn new(name: &'static str) -> Self {
        Self {
            name,
            marker: PhantomData,
        }
    }

    /// The attribute name.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<E, T, M> Clone for Attr<E, T, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T, M> Copy for Attr<E, T, M> {}

impl<E, T, M> fmt::Debug for Attr<E, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Attr({})", self.name)
    }
}

/// The role of an ordinary field: it can be set, removed and compared.
#[derive(Debug, Clone, Copy)]
pub struct Plain;

/// The role of a table key composite: part of the item's identity, so an
/// update can never change it.
#[derive(Debug, Clone, Copy)]
pub struct TableKeyComposite;

/// The role of a field the client writes itself: `#[entity(created_at)]`,
/// `#[entity(updated_at)]` and `#[entity(version)]`. An update never sets
/// it: the client stamps the timestamps and bumps the version on every write.
#[derive(Debug, Clone, Copy)]
pub struct Managed;

/// The role of a field of a unique constraint (`#[entity(unique(email))]`).
/// Its value is held a second time by the constraint's sentinel item, which
/// only `put` and `upsert` move (they read the old value and write both in
/// one transaction), so an update never sets it.
#[derive(Debug, Clone, Copy)]
pub struct UniqueField;

/// Roles whose fields an update may change on their own.
///
/// Table key composites never change (the item's key would); managed fields
/// are the client's to write; unique constraints' fields change only with
/// their sentinel, through `put` or `upsert`; secondary index key composites
/// change only through the entity's generated group setter
/// (`Task::set_priority_status(..)`), which recomposes every index key they
/// are part of. The marker type of such a field is named after the fields
/// that go together. Under `policy = "sparse"` (on every index a composite
/// is part of), the composite's role is [`SparseComposite`]: it can be set
/// alone, and the update removes those indexes' keys.
#[diagnostic::on_unimplemented(
    message = "fields of role `{Self}` cannot be set on their own in an update",
    label = "an update cannot set this field on its own",
    note = "an index key composite changes with its group, through the setter its role names (role `TaskSetPriorityStatus`: `.apply(Task::set_priority_status(..))`), which recomposes the index keys; declare its indexes `policy = \"sparse\"` to also set it alone, which takes the item out of them",
    note = "a table key composite (role `TableKeyComposite`) never changes in an update: put a new item and delete the old one",
    note = "a managed field (role `Managed`: `created_at`, `updated_at`, `version`) is written by the client on every write, never by hand",
    note = "a unique constraint's field (role `UniqueField`) changes only through `client.put` or `client.upsert`, which move its sentinel with it",
    note = "an encrypted or signed field (role `Encrypted`, `Signed`) is signed with its item: it changes only through a whole-item write (`put`, `upsert`)"
)]
pub trait Settable {
    /// The index key attributes an update setting such a field removes: a
    /// composite of `policy = "sparse"` indexes, set without the rest of
    /// its index, takes the item out of them rather than leave a stale key.
    fn index_keys() -> &'static [&'static str] {
        &[]
    }

    /// The attribute an update stores for a value set: the value itself,
    /// or a compressed field's value compressed as a whole-item write
    /// stores it.
    fn stored(value: AttributeValue) -> Result<AttributeValue, AttributeError> {
        Ok(value)
    }
}

impl Settable for Plain {}

/// The role of an `#[entity(encrypt)]` field: stored as ciphertext signed
/// with its item, so neither compared in a condition or filter (DynamoDB
/// sees only ciphertext) nor set by an update (which would break the
/// item's signature); a whole-item write (`put`, `upsert`) changes it.
#[derive(Debug)]
pub struct Encrypted;

/// The role of an `#[entity(sign)]` field: stored plain and signed with
/// its item, so compared in conditions and filters but not set by an
/// update (which would break the item's signature); a whole-item write
/// changes it.
#[derive(Debug)]
pub struct Signed;

impl Comparable for Signed {}

/// The roles whose fields conditions and filters compare: every role but
/// [`Encrypted`].
#[diagnostic::on_unimplemented(
    message = "an encrypted field cannot be compared in a condition or filter",
    label = "DynamoDB holds only this field's ciphertext",
    note = "compare an encrypted field's value after reading the item, or compare a field that is not encrypted"
)]
pub trait Comparable {}

impl Comparable for Plain {}
impl Comparable for TableKeyComposite {}
impl Comparable for Managed {}
impl Comparable for UniqueField {}
impl<const MIN: usize> Comparable for Compressed<MIN> {}
impl<E, const FIELD: usize> Comparable for SparseComposite<E, FIELD> {}

/// The role of a `#[entity(compress)]` field whose threshold is `MIN`
/// bytes: an update's `set` stores its value compressed, as `put` does.
#[derive(Debug)]
pub struct Compressed<const MIN: usize>;

impl<const MIN: usize> Settable for Compressed<MIN> {
    fn stored(value: AttributeValue) -> Result<AttributeValue, AttributeError> {
        crate::compress::encode_attribute(value, MIN)
    }
}

/// The role of a composite of secondary indexes that are all declared
/// `policy = "sparse"`: field number `FIELD` of entity `E`. It can be set
/// on its own; the update then removes the key attributes of those indexes,
/// so the item leaves them until a write with every composite (a whole-item
/// write, or the group setter) puts it back. Never a stale key.
pub struct SparseComposite<E, const FIELD: usize>(PhantomData<fn() -> E>);

impl<E, const FIELD: usize> fmt::Debug for SparseComposite<E, FIELD> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SparseComposite({FIELD})")
    }
}

impl<E, const FIELD: usize> Clone for SparseComposite<E, FIELD> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, const FIELD: usize> Copy for SparseComposite<E, FIELD> {}

/// The index key attributes of an entity's [`SparseComposite`] fields
/// (implemented by `#[derive(Entity)]`).
pub trait SparseKeys {
    /// The key attributes of the sparse indexes field number `field` is a
    /// composite of.
    fn sparse_index_keys(field: usize) -> &'static [&'static str];
}

impl<E: SparseKeys, const FIELD: usize> Settable for SparseComposite<E, FIELD> {
    fn index_keys() -> &'static [&'static str] {
        E::sparse_index_keys(FIELD)
    }
}

/// A value usable where a `T` is stored: `T` itself, `&T`, `&str` for
/// `String`, and `X` for `Option<X>`.
pub trait IntoAttr<T> {
    /// The attribute value (`NULL` for `None`).
    fn into_attr(self) -> Result<AttributeValue, AttributeError>;
}

fn present(
    value: Result<Option<AttributeValue>, AttributeError>,
) -> Result<AttributeValue, AttributeError> {
    value.map(|v| v.unwrap_or(AttributeValue::Null(true)))
}

impl<T: ToAttribute> IntoAttr<T> for T {
    fn into_attr(self) -> Result<AttributeValue, AttributeError> {
        present(self.to_attribute())
    }
}

impl<T: ToAttribute> IntoAttr<T> for &T {
    fn into_attr(self) -> Result<AttributeValue, AttributeError> {
        present(self.to_attribute())
    }
}

impl IntoAttr<String> for &str {
    fn into_attr(self) -> Result<AttributeValue, AttributeError> {
        Ok(AttributeValue::S(self.to_owned()))
    }
}

impl<T: ToAttribute> IntoAttr<Option<T>> for T {
    fn into_attr(self) -> Result<AttributeValue, AttributeError> {
        present(self.to_attribute())
    }
}

impl IntoAttr<Option<String>> for &str {
    fn into_attr(self) -> Result<AttributeValue, AttributeError> {
        Ok(AttributeValue::S(self.to_owned()))
    }
}

/// Number types, which `add` and `subtract` work on.
pub trait Numeric: ToAttribute {
    /// The type's range, where it fits `i128`: `add` and `subtract` are
    /// conditioned on the result staying inside it, so an update can never
    /// store a number the field cannot read back.
    const BOUNDS: Option<(i128, i128)> = None;

    /// Zero, for `if_not_exists(attr, 0) + n`.
    fn zero() -> AttributeValue {
        AttributeValue::N("0".to_owned())
    }
}

macro_rules! bounded {
    ($($ty:ty),*) => { $(impl Numeric for $ty {
        const BOUNDS: Option<(i128, i128)> = Some((<$ty>::MIN as i128, <$ty>::MAX as i128));
    })* };
}
bounded!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
impl Numeric for u128 {}
impl Numeric for i128 {}
impl Numeric for f32 {}
impl Numeric for f64 {}
impl<T: Numeric> Numeric for Option<T> {
    const BOUNDS: Option<(i128, i128)> = T::BOUNDS;
}
