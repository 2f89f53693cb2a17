//! Operations. Each builder holds its own errors until it is sent, and is
//! an [`operation::Operation`]: `.await` sends it, inside its tracing span,
//! and `explain()` shows what it would send.

pub mod batch;
pub mod delete;
pub mod drift;
pub mod explain;
pub mod get;
pub mod get_unique;
pub mod history;
pub mod history_reader;
pub(crate) mod history_update;
pub mod hydrate;
pub(crate) mod lifecycle;
pub(crate) mod managed;
pub mod migrate;
pub(crate) mod operation;
pub mod paging;
pub mod probe;
pub mod query;
pub mod rekey;
pub(crate) mod render;
pub(crate) mod rewrite;
pub(crate) mod rmw;
pub mod scan;
pub(crate) mod sharded;
pub(crate) mod single;
pub mod table;
pub mod table_projection;
pub mod transact;
pub mod unique;
pub mod update;
pub(crate) mod visibility;
pub mod warm;
pub(crate) mod whole_write;
pub mod write;

use crate::error::{Error, Result, ValidationError};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use entity_core::expr::{Condition, Placeholders};
use entity_core::{Entity, Item};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

/// The future of a sent request.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Another item written in the same transaction: a unique constraint's
/// sentinel.
#[derive(Debug)]
pub(crate) struct Companion {
    /// The companion's table key.
    pub key: Item,
    pub item: aws_sdk_dynamodb::types::TransactWriteItem,
    /// What a failed condition on it means: this constraint's value is taken.
    pub violation: Option<(&'static str, String)>,
    /// For a sentinel it puts: frees the sentinel if its holder no longer
    /// holds the value, so the write may be sent again.
    pub reclaim: Option<Reclaim>,
    /// A history snapshot's slot: a failed condition means another
    /// entity's item holds the slot (reported as the write's failed
    /// condition, with that item, which a tenant client's guard refuses).
    pub slot: bool,
}

/// Frees a stale sentinel of `(constraint, value)`: `true` when the write
/// it refused may be sent again (`unique::reclaim_stale`).
pub(crate) type Reclaim =
    for<'a> fn(&'a crate::Client, &'a str, &'a str) -> BoxFuture<'a, Result<bool>>;

/// What a write returns: nothing, or the item before or after it.
pub trait Returning<E>: Send + 'static {
    /// The output of the write.
    type Output: Send;
    /// DynamoDB's `ReturnValues`.
    fn return_value() -> ReturnValue;
    /// Reads the returned attributes.
    fn output(entity: &'static str, attributes: Option<Item>) -> Result<Self::Output>;

    /// The output when the client knows the stored entity and asked for no
    /// attributes.
    #[doc(hidden)]
    fn stored(entity: E) -> Result<Self::Output> {
        let _ = entity;
        Err(ValidationError::InvalidRequest(
            "this write returns the attributes DynamoDB sends back".into(),
        )
        .into())
    }
}

/// Return the entity as stored, with the ids, timestamps and version the
/// client filled in (the default of `put`, `create` and `upsert`).
#[derive(Debug, Clone, Copy)]
pub struct ReturnStored;

impl<E: Entity + Send + 'static> Returning<E> for ReturnStored {
    type Output = E;
    fn return_value() -> ReturnValue {
        ReturnValue::None
    }
    fn output(entity: &'static str, attributes: Option<Item>) -> Result<E> {
        match attributes {
            Some(item) => Ok(E::from_item(item)?),
            None => Err(Error::NotFound { entity }),
        }
    }
    fn stored(entity: E) -> Result<E> {
        Ok(entity)
    }
}

/// Return nothing (the default).
#[derive(Debug, Clone, Copy)]
pub struct ReturnNothing;
/// Return the whole item as it was before the write (`ALL_OLD`).
#[derive(Debug, Clone, Copy)]
pub struct ReturnOld;
/// Return the whole item as it is after the update (`ALL_NEW`).
#[derive(Debug, Clone, Copy)]
pub struct ReturnNew;
/// Return the updated attributes as they were (`UPDATED_OLD`).
#[derive(Debug, Clone, Copy)]
pub struct ReturnUpdatedOld;
/// Return the updated attributes as they are now (`UPDATED_NEW`).
#[derive(Debug, Clone, Copy)]
pub struct ReturnUpdatedNew;

impl<E> Returning<E> for ReturnNothing {
    type Output = ();
    fn return_value() -> ReturnValue {
        ReturnValue::None
    }
    fn output(_: &'static str, _: Option<Item>) -> Result<()> {
        Ok(())
    }
    fn stored(_: E) -> Result<()> {
        Ok(())
    }
}

impl<E: Entity + Send + 'static> Returning<E> for ReturnOld {
    type Output = Option<E>;
    fn return_value() -> ReturnValue {
        ReturnValue::AllOld
    }
    fn output(_: &'static str, attributes: Option<Item>) -> Result<Option<E>> {
        match attributes {
            Some(item) if !is_key_only::<E>(&item) => Ok(Some(E::from_item(item)?)),
            _ => Ok(None),
        }
    }
}

impl<E: Entity + Send + 'static> Returning<E> for ReturnNew {
    type Output = E;
    fn return_value() -> ReturnValue {
        ReturnValue::AllNew
    }
    fn output(entity: &'static str, attributes: Option<Item>) -> Result<E> {
        match attributes {
            Some(item) => Ok(E::from_item(item)?),
            None => Err(Error::NotFound { entity }),
        }
    }
}

/// Whether `item` holds nothing but (some of) the table key: no item at all.
/// DynamoDB returns no attributes for `ALL_OLD` when an update creates the
/// item; some compatible servers return the key they were given instead.
fn is_key_only<E: Entity>(item: &Item) -> bool {
    item.keys().all(|name| is_table_key::<E>(name))
}

/// The table key attributes of `item`.
pub(crate) fn table_key<E: Entity>(item: &Item) -> Item {
    let primary = &E::MODEL.primary;
    std::iter::once(primary.pk.attribute)
        .chain(primary.sk.map(|sk| sk.attribute))
        .filter_map(|name| Some((name.to_owned(), item.get(name)?.clone())))
        .collect()
}

/// Whether `name` is one of the table key attributes of `E`.
pub(crate) fn is_table_key<E: Entity>(name: &str) -> bool {
    let key = &E::MODEL.primary;
    name == key.pk.attribute || key.sk.is_some_and(|sk| name == sk.attribute)
}

macro_rules! raw_returning {
    ($($ty:ty => $value:ident),*) => {$(
        impl<E> Returning<E> for $ty {
            type Output = Item;
            fn return_value() -> ReturnValue {
                ReturnValue::$value
            }
            fn output(_: &'static str, attributes: Option<Item>) -> Result<Item> {
                Ok(attributes.unwrap_or_default())
            }
        }
    )*};
}

raw_returning!(ReturnUpdatedOld => UpdatedOld, ReturnUpdatedNew => UpdatedNew);

/// A condition rendered into `placeholders`, or the error of one of its
/// values.
pub(crate) fn render_condition<E>(
    condition: Option<&Condition<E>>,
    placeholders: &mut Placeholders,
    context: &'static str,
) -> Result<Option<String>> {
    condition
        .map(|c| c.render(placeholders))
        .transpose()
        .map_err(|source| Error::Validation(ValidationError::Value { context, source }))
}

/// A request's condition, and the names and values of all its expressions.
#[derive(Debug, Default, Clone)]
pub(crate) struct Expressions {
    pub condition: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
}

impl Expressions {
    /// The condition, and the names and values `placeholders` handed out.
    pub(crate) fn new(condition: Option<String>, placeholders: Placeholders) -> Self {
        let rendered = placeholders.finish();
        Self {
            condition,
            names: rendered.names,
            values: rendered.values,
        }
    }
}

/// A condition that is a request's only expression.
pub(crate) fn condition_only<E>(
    condition: Option<&Condition<E>>,
    context: &'static str,
) -> Result<Expressions> {
    let mut placeholders = Placeholders::default();
    let text = render_condition(condition, &mut placeholders, context)?;
    Ok(Expressions::new(text, placeholders))
}

/// The builders of conditional writes, alone or in a transaction: they all
/// take a request's expressions the same way, and return the stored item
/// when the condition fails.
pub(crate) trait Conditional: Sized {
    fn expressions(self, expressions: Expressions) -> Self;
}

macro_rules! conditional {
    ($($builder:ty),* $(,)?) => {$(
        impl Conditional for $builder {
            fn expressions(self, e: Expressions) -> Self {
                // Most writes have no expression at all: the builder (a
                // few hundred bytes, moved by every setter) is left as it
                // is.
                if e.condition.is_none() && e.names.is_none() && e.values.is_none() {
                    return self;
                }
                // What a failed condition returns: nothing to ask for
                // without one.
                let on_failure = e
                    .condition
                    .is_some()
                    .then_some(ReturnValuesOnConditionCheckFailure::AllOld);
                self.set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .set_return_values_on_condition_check_failure(on_failure)
            }
        }
    )*};
}

conditional!(
    aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder,
    aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder,
    aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder,
    aws_sdk_dynamodb::types::builders::PutBuilder,
    aws_sdk_dynamodb::types::builders::UpdateBuilder,
    aws_sdk_dynamodb::types::builders::DeleteBuilder,
    aws_sdk_dynamodb::types::builders::ConditionCheckBuilder,
);

/// `a AND b` for optional conditions.
pub(crate) fn and<E>(a: Option<Condition<E>>, b: Option<Condition<E>>) -> Option<Condition<E>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.and(b)),
        (a, b) => a.or(b),
    }
}

/// The condition "the item exists", on the table's partition key.
pub(crate) fn exists<E: Entity>() -> Condition<E> {
    entity_core::__private::condition_exists(E::MODEL.primary.pk.attribute)
}

/// The condition "no item has this key".
pub(crate) fn not_exists<E: Entity>() -> Condition<E> {
    entity_core::__private::condition_not_exists(E::MODEL.primary.pk.attribute)
}

/// The condition that the stored item, if any, is of the entity's current
/// version, stored as a number or as text (either reads).
pub(crate) fn current_version<E: Entity>() -> Condition<E> {
    let model = E::MODEL;
    let attribute = model.version_attribute;
    let version = model.version.to_string();
    let is = |value| entity_core::__private::condition_equals(attribute, value);
    entity_core::__private::condition_not_exists::<E>(attribute)
        .or(is(AttributeValue::N(version.clone())))
        .or(is(AttributeValue::S(version)))
}

/// For `patch` and `remove`: a failed existence condition with no old item
/// means the item was missing.
pub(crate) fn missing_as_not_found(error: Error) -> Error {
    match error {
        Error::ConditionFailed {
            entity, old: None, ..
        } => Error::NotFound { entity },
        other => other,
    }
}
