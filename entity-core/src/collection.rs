//! Collections: entity types that share a partition key on one index (or on
//! the table's keys) and are read with one Query, as a typed union (`#[derive(Collection)]` on an enum
//! whose variants are the members).
//!
//! Each entity describes the collections it joins in
//! [`CollectionMember::COLLECTIONS`]; the union's derive checks, at compile
//! time, that its members agree (same physical index, same key attributes,
//! same partition key composites, one layout, unique names, no sort key
//! prefix inside another), with `const` assertions whose messages say what to
//! change.

use crate::entity::Entity;
use crate::error::DecodeError;
use crate::Item;

pub(crate) mod consts;

/// How a member entity joins one collection, as the derive writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectionSpec {
    /// The collection path as declared: `["tenantMembers"]`,
    /// `["contributions", "assignments"]`.
    pub path: &'static [&'static str],
    /// Clustered (the collection above the entity in the sort key) or
    /// isolated (each entity owns its sort key prefix).
    pub clustered: bool,
    /// The logical index of the entity (its accessor).
    pub index: &'static str,
    /// The physical index; `None` for the table's keys
    /// (`#[entity(collection = ...)]`).
    pub index_name: Option<&'static str>,
    /// The partition key attribute.
    pub pk_attribute: &'static str,
    /// The sort key attribute.
    pub sk_attribute: &'static str,
    /// The partition key composites (field names, in order).
    pub pk_fields: &'static [&'static str],
    /// The partition key's literal text around its values: one more than
    /// there are composites.
    pub pk_texts: &'static [&'static str],
    /// The start of every sort key this entity writes in the collection:
    /// `$myapp#v1#tenantmembers#employee_1`, or with a custom format the
    /// literal text before its first field (`ORDER#`, or `PROFILE` for a
    /// key without fields).
    pub sk_prefix: &'static str,
    /// The keys are composed from a custom `format = "..."` (an isolated
    /// collection): the checks' messages point at the formats.
    pub custom_format: bool,
    /// The start of every sort key of the collection and of each collection
    /// above it, root first (clustered): `["$myapp#v1#contributions",
    /// "$myapp#v1#contributions#assignments"]`; empty for isolated
    /// collections.
    pub collection_prefixes: &'static [&'static str],
}

/// The collections an entity joins. Every `#[derive(Entity)]` implements it.
pub trait CollectionMember: Entity {
    /// One entry per index that names a collection (none by default).
    const COLLECTIONS: &'static [CollectionSpec] = &[];
}

/// The partition key composite types of an entity's `I`th collection index,
/// so a union can check them against its own.
pub trait CollectionPk<const I: usize> {
    /// A tuple of the composite types.
    type Pk;
}

/// The partition key type of an entity that is not in the collection: the
/// union reports that once, with its own message, and this stands in so the
/// type check adds no second error.
#[derive(Debug)]
pub enum NotAMember {}

/// Tuples of partition key composite types.
pub trait PkTuple {}

macro_rules! pk_tuples {
    ($(($($t:ident),*)),*) => { $(impl<$($t),*> PkTuple for ($($t,)*) {})* };
}
pk_tuples!(
    (),
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, F),
    (A, B, C, D, F, G),
    (A, B, C, D, F, G, H),
    (A, B, C, D, F, G, H, I)
);

/// Proves two types equal; used to compare partition key composite types.
#[diagnostic::on_unimplemented(
    message = "a collection member's partition key composites have types `{Self}`, but the collection's `pk(...)` declares `{T}`",
    label = "this member's composites differ in type",
    note = "every member of a collection composes the same partition key: give them the same composite fields, in the same order, with the same types"
)]
pub trait SameTypes<T> {}

impl<T> SameTypes<T> for T {}

#[diagnostic::do_not_recommend]
impl<T: PkTuple> SameTypes<T> for NotAMember {}

pub(crate) static PLACEHOLDER: CollectionSpec = CollectionSpec {
    path: &[],
    clustered: false,
    index: "",
    index_name: None,
    pk_attribute: "",
    sk_attribute: "",
    pk_fields: &[],
    pk_texts: &[],
    sk_prefix: "",
    custom_format: false,
    collection_prefixes: &[],
};

/// A typed union of the members of one collection (`#[derive(Collection)]`).
pub trait Collection: Sized {
    /// The collection path.
    const PATH: &'static [&'static str];
    /// Every member's results, one `Vec` per member.
    type Grouped: Default;

    /// Reads an item as the member its identity attribute names; `Ok(None)`
    /// for an item of an entity that is not a member.
    fn decode(item: Item) -> Result<Option<Self>, DecodeError>;

    /// Adds this item to its member's `Vec`.
    fn group(self, grouped: &mut Self::Grouped);

    /// Every key attribute the members write.
    fn key_attributes() -> Vec<&'static str>;
}
