//! Conditions on a query's sort key: on the next composite, or on the whole
//! key.
//!
//! A typed accessor's stage offers its next sort key composite as a method
//! named after it, which returns a [`Composite`]. `eq` fixes the composite
//! and moves on to the next one; `begins_with`, `gt`, `gte`, `lt`, `lte`
//! and `between` end the query with a condition on it. An access pattern
//! with several sort key composites also offers `.sk()`, a [`SortKey`]:
//! the same comparisons on the whole key, given as a tuple of every
//! composite's value.
//!
//! ```
//! use entity_core::{Entity, KeyPart};
//!
//! #[derive(Entity)]
//! #[entity(schema = "app")]
//! #[pk(project)]
//! #[sk(priority, status)]
//! struct Task { project: String, priority: u8, status: Status }
//!
//! #[derive(KeyPart, Clone, Copy)]
//! enum Status { Open, Done }
//!
//! // Every task of priority 3 or more.
//! let q = Task::primary("p1").priority().gte(3);
//! assert_eq!(q.key_condition_expression(), "#pk = :pk AND #sk BETWEEN :sk1 AND :sk2");
//!
//! // Priority 3, then the open ones: `eq` moves on to `status`.
//! let q = Task::primary("p1").priority().eq(3).status().eq(Status::Open).build();
//! assert_eq!(q.key_condition_expression(), "#pk = :pk AND #sk = :sk1");
//!
//! // From (3, Open) on, in key order.
//! let q = Task::primary("p1").sk().gte((3, Status::Open));
//! assert_eq!(q.key_condition_expression(), "#pk = :pk AND #sk BETWEEN :sk1 AND :sk2");
//! ```
//!
//! A composite cannot be skipped (`Task::primary("p1").status()` names
//! `priority` as the one to give first), a value of the wrong type is
//! refused on the value, and a composite whose key text does not sort as
//! its values has no ranges: each is a compile error.

use crate::query::{Comparison, KeyQuery};
use crate::{KeyArg, KeyPart, NativeKey, NativeOp, Query};
use std::marker::PhantomData;

/// A typed accessor's stage, which a composite's `eq` moves on to. The
/// derive implements it for each entity's stage type.
pub trait Stage {
    /// What the query reads: the entity, or a projected index's view.
    type Out;
    /// The access pattern's marker type (`TaskByProject`).
    type Index;

    #[doc(hidden)]
    fn from_key_query(q: KeyQuery<Self::Out, Self::Index>) -> Self;

    #[doc(hidden)]
    fn into_key_query(self) -> KeyQuery<Self::Out, Self::Index>;
}

/// Starts a typed query on one partition of the table (`index` empty) or
/// of an index, at stage 0; `sk_attribute` is empty on a key with no sort
/// key, and `prefix` is the sort key text before its first composite (the
/// whole key when `complete`).
#[doc(hidden)]
#[inline]
pub fn stage<S: Stage>(
    index: &'static str,
    pk_attribute: &'static str,
    pk: String,
    sk_attribute: &'static str,
    prefix: &str,
    complete: bool,
) -> S {
    let index = (!index.is_empty()).then_some(index);
    stage_of(
        Query::new(index, pk_attribute, pk),
        sk_attribute,
        prefix,
        complete,
    )
}

/// [`stage`] from a query built already (a sharded partition's).
#[doc(hidden)]
#[inline]
pub fn stage_of<S: Stage>(
    query: Query<S::Out>,
    sk_attribute: &'static str,
    prefix: &str,
    complete: bool,
) -> S {
    let sk_attribute = (!sk_attribute.is_empty()).then_some(sk_attribute);
    S::from_key_query(KeyQuery::new(query, sk_attribute, prefix, complete))
}

/// A composite whose key text sorts as its values: every condition.
#[derive(Debug)]
pub enum Ordered {}

/// A composite whose key text does not sort as its values (an unpadded
/// number, or a value followed by text other than `#`): `eq` and
/// `begins_with`, no ranges.
#[derive(Debug)]
pub enum Unordered {}

/// A number, compared as a number by DynamoDB: `eq` and the ranges, no
/// `begins_with`.
#[derive(Debug)]
pub enum Numeric {}

/// The kinds of composite that have ranges.
#[diagnostic::on_unimplemented(
    message = "this sort key composite has no ranges: its key text does not sort as its values",
    label = "no `gt`, `gte`, `lt`, `lte` or `between` on this composite",
    note = "an unpadded number, or a value followed by text other than `#`, sorts as text: pad the number or follow the value with `#`, or use `eq` or `begins_with`"
)]
pub trait Ranges {}
impl Ranges for Ordered {}
impl Ranges for Numeric {}

/// The kinds of composite that have `begins_with`.
#[diagnostic::on_unimplemented(
    message = "a number sort key has no `begins_with`",
    label = "DynamoDB compares this key as a number",
    note = "use `eq`, or a range: `between`, `gte`, `lt`"
)]
pub trait Prefixes {}
impl Prefixes for Ordered {}
impl Prefixes for Unordered {}

/// Writes a composite's value as key text (a bucketed, unpadded or
/// case-folded composite's own encoding).
type Encode<T> = fn(&dyn KeyArg<T>, &mut String);

/// The next sort key composite of a typed query, of type `T`: fix it with
/// `eq`, or end the query with a condition on it. `S` is the stage that
/// follows; `K` says which conditions it has ([`Ordered`], [`Unordered`],
/// [`Numeric`]). See [the module](self).
#[must_use = "a sort key composite does nothing until it is given a condition"]
pub struct Composite<S: Stage, T: KeyPart, K = Ordered> {
    q: KeyQuery<S::Out, S::Index>,
    /// The key text between this composite's value and the next one's.
    then: &'static str,
    /// Fixing it fixes the whole key.
    complete: bool,
    /// Nothing follows its value in the key.
    last: bool,
    /// The number attribute, for a number sort key.
    number: Option<&'static str>,
    encode: Option<Encode<T>>,
    kind: PhantomData<fn() -> K>,
}

impl<S: Stage, T: KeyPart, K> std::fmt::Debug for Composite<S, T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Composite").field("query", &self.q).finish()
    }
}

/// Starts a condition on a plain composite (its text is its value's).
#[doc(hidden)]
#[inline]
pub fn composite<S: Stage, T: KeyPart, K>(
    q: KeyQuery<S::Out, S::Index>,
    then: &'static str,
    complete: bool,
    last: bool,
) -> Composite<S, T, K> {
    encoded_composite(q, then, complete, last, None, None)
}

/// Starts a condition on a composite with its own encoding, or of a number
/// sort key (`number`, its attribute).
#[doc(hidden)]
#[inline]
pub fn encoded_composite<S: Stage, T: KeyPart, K>(
    q: KeyQuery<S::Out, S::Index>,
    then: &'static str,
    complete: bool,
    last: bool,
    number: Option<&'static str>,
    encode: Option<Encode<T>>,
) -> Composite<S, T, K> {
    Composite {
        q,
        then,
        complete,
        last,
        number,
        encode,
        kind: PhantomData,
    }
}

impl<S: Stage, T: KeyPart, K> Composite<S, T, K> {
    fn write(&self, value: &impl KeyArg<T>, out: &mut String) {
        match self.encode {
            Some(encode) => encode(value, out),
            None => value.encode_arg(out),
        }
    }

    /// The key text so far, then `value`'s.
    fn text(&self, value: &impl KeyArg<T>) -> String {
        let mut text = self.q.prefix().to_owned();
        self.write(value, &mut text);
        text
    }

    fn compare(self, op: Comparison, value: &impl KeyArg<T>) -> Query<S::Out> {
        let text = self.text(value);
        self.q.compare_text(op, text, self.last)
    }

    /// Fixes the composite to `value` and moves on to the next one. The
    /// stage it returns is a query too (`begins_with` on the key so far,
    /// or the exact key once every composite is fixed): give it to
    /// `client.query(..)` as it is, or make it a [`Query`] with `.build()`.
    pub fn eq(self, value: impl KeyArg<T>) -> S {
        let mut text = String::new();
        self.write(&value, &mut text);
        S::from_key_query(self.q.fix_text(&text, self.then, self.complete))
    }

    /// The composite's key text starts with `value`'s (a string's prefix).
    pub fn begins_with(self, value: impl KeyArg<T>) -> Query<S::Out>
    where
        K: Prefixes,
    {
        let text = self.text(&value);
        self.q.begins_with_text(text)
    }

    /// The composite `> value`.
    pub fn gt(self, value: impl KeyArg<T>) -> Query<S::Out>
    where
        K: Ranges,
    {
        self.compare(Comparison::Gt, &value)
    }

    /// The composite `>= value`.
    pub fn gte(self, value: impl KeyArg<T>) -> Query<S::Out>
    where
        K: Ranges,
    {
        self.compare(Comparison::Ge, &value)
    }

    /// The composite `< value`.
    pub fn lt(self, value: impl KeyArg<T>) -> Query<S::Out>
    where
        K: Ranges,
    {
        self.compare(Comparison::Lt, &value)
    }

    /// The composite `<= value`.
    pub fn lte(self, value: impl KeyArg<T>) -> Query<S::Out>
    where
        K: Ranges,
    {
        self.compare(Comparison::Le, &value)
    }

    /// `low <=` the composite `<= high`. A `low` above `high` matches
    /// nothing.
    pub fn between(self, low: impl KeyArg<T>, high: impl KeyArg<T>) -> Query<S::Out>
    where
        K: Ranges,
    {
        let (low, high) = (self.text(&low), self.text(&high));
        match self.number {
            Some(attribute) => {
                crate::__private::number_between(self.q.finish(), attribute, low, high)
            }
            None => self.q.between_text(low, high, self.last),
        }
    }
}

/// The next sort attribute of a multi-attribute key, of type `T`: fix it
/// with `eq`, or end the query with a condition on it. DynamoDB compares
/// its native values, so numbers sort as numbers. A number attribute
/// ([`Numeric`]) has no `begins_with`.
#[must_use = "a sort key attribute does nothing until it is given a condition"]
pub struct NativeComposite<S: Stage, T: NativeKey, K = Ordered> {
    q: KeyQuery<S::Out, S::Index>,
    attribute: &'static str,
    kind: PhantomData<fn() -> (T, K)>,
}

impl<S: Stage, T: NativeKey, K> std::fmt::Debug for NativeComposite<S, T, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeComposite")
            .field("attribute", &self.attribute)
            .field("query", &self.q)
            .finish()
    }
}

/// Starts a condition on sort attribute `attribute`.
#[doc(hidden)]
#[inline]
pub fn native_composite<S: Stage, T: NativeKey, K>(
    q: KeyQuery<S::Out, S::Index>,
    attribute: &'static str,
) -> NativeComposite<S, T, K> {
    NativeComposite {
        q,
        attribute,
        kind: PhantomData,
    }
}

impl<S: Stage, T: NativeKey, K> NativeComposite<S, T, K> {
    fn end(self, op: NativeOp, values: Vec<crate::__private::AttributeValue>) -> Query<S::Out> {
        self.q.native_compare(self.attribute, op, values)
    }

    fn compare(self, op: NativeOp, value: impl Into<T::Value>) -> Query<S::Out> {
        let value = T::key_value(value.into());
        self.end(op, vec![value])
    }

    /// Fixes the attribute to `value` and moves on to the next one (a
    /// query too, as [`Composite::eq`]'s stage is).
    pub fn eq(self, value: impl Into<T::Value>) -> S {
        let value = T::key_value(value.into());
        S::from_key_query(self.q.native_eq(self.attribute, value))
    }

    /// The attribute starts with `value`.
    pub fn begins_with(self, value: impl Into<T::Value>) -> Query<S::Out>
    where
        K: Prefixes,
    {
        self.compare(NativeOp::BeginsWith, value)
    }

    /// The attribute `> value`.
    pub fn gt(self, value: impl Into<T::Value>) -> Query<S::Out> {
        self.compare(NativeOp::Gt, value)
    }

    /// The attribute `>= value`.
    pub fn gte(self, value: impl Into<T::Value>) -> Query<S::Out> {
        self.compare(NativeOp::Ge, value)
    }

    /// The attribute `< value`.
    pub fn lt(self, value: impl Into<T::Value>) -> Query<S::Out> {
        self.compare(NativeOp::Lt, value)
    }

    /// The attribute `<= value`.
    pub fn lte(self, value: impl Into<T::Value>) -> Query<S::Out> {
        self.compare(NativeOp::Le, value)
    }

    /// `low <=` the attribute `<= high`.
    pub fn between(self, low: impl Into<T::Value>, high: impl Into<T::Value>) -> Query<S::Out> {
        let (low, high) = (T::key_value(low.into()), T::key_value(high.into()));
        self.end(NativeOp::Between, vec![low, high])
    }
}

/// Composes an access pattern's whole sort key from a tuple of its
/// composites' values. The derive implements it on the pattern's marker
/// type (`TaskByProject`), once, so rustc reads the argument as that tuple:
/// anything else is a mismatched type, and a wrong value is refused by
/// [`KeyArg`]'s own message.
pub trait ComposeSortKey<A> {
    /// The sort key text.
    fn compose(sk: A) -> String;
}

/// The whole sort key of a typed query with several composites, compared
/// with keys given as tuples of every composite's value. See [the
/// module](self).
#[must_use = "a sort key does nothing until it is given a condition"]
pub struct SortKey<S: Stage> {
    q: KeyQuery<S::Out, S::Index>,
}

impl<S: Stage> std::fmt::Debug for SortKey<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SortKey").field("query", &self.q).finish()
    }
}

/// Starts a condition on the whole sort key.
#[doc(hidden)]
#[inline]
pub fn sort_key<S: Stage>(q: KeyQuery<S::Out, S::Index>) -> SortKey<S> {
    SortKey { q }
}

impl<S: Stage> SortKey<S> {
    fn compare<A>(self, op: Comparison, sk: A) -> Query<S::Out>
    where
        S::Index: ComposeSortKey<A>,
    {
        self.q.compare_text(op, S::Index::compose(sk), true)
    }

    /// The sort key `>` the one composed from `sk`.
    pub fn gt<A>(self, sk: A) -> Query<S::Out>
    where
        S::Index: ComposeSortKey<A>,
    {
        self.compare(Comparison::Gt, sk)
    }

    /// The sort key `>=` the one composed from `sk`.
    pub fn gte<A>(self, sk: A) -> Query<S::Out>
    where
        S::Index: ComposeSortKey<A>,
    {
        self.compare(Comparison::Ge, sk)
    }

    /// The sort key `<` the one composed from `sk`.
    pub fn lt<A>(self, sk: A) -> Query<S::Out>
    where
        S::Index: ComposeSortKey<A>,
    {
        self.compare(Comparison::Lt, sk)
    }

    /// The sort key `<=` the one composed from `sk`.
    pub fn lte<A>(self, sk: A) -> Query<S::Out>
    where
        S::Index: ComposeSortKey<A>,
    {
        self.compare(Comparison::Le, sk)
    }

    /// The sort key between those composed from `low` and `high`, both
    /// included.
    pub fn between<A, B>(self, low: A, high: B) -> Query<S::Out>
    where
        S::Index: ComposeSortKey<A> + ComposeSortKey<B>,
    {
        let (low, high) = (S::Index::compose(low), S::Index::compose(high));
        self.q.between_text(low, high, true)
    }
}

/// A stage is a query: `begins_with` on the composites fixed so far, or the
/// exact key once all are.
impl<S: Stage> From<S> for Query<S::Out> {
    fn from(stage: S) -> Self {
        stage.into_key_query().finish()
    }
}
