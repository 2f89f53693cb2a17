//! Operations. Each builder holds its own errors until it is sent, and
//! implements `IntoFuture`, so `.await` sends it.

pub mod batch;
pub mod get;
pub mod query;
pub mod scan;
pub mod table;
pub mod transact;
pub mod update;
pub mod write;

use crate::error::{Error, Result, ValidationError};
use aws_sdk_dynamodb::types::ReturnValue;
use entity_core::expr::{Condition, Placeholders};
use entity_core::{Entity, Item};
use std::future::Future;
use std::pin::Pin;

/// The future of a sent request.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a write returns: nothing, or the item before or after it.
pub trait Returning<E>: Send + 'static {
    /// The output of the write.
    type Output: Send;
    /// DynamoDB's `ReturnValues`.
    fn return_value() -> ReturnValue;
    /// Reads the returned attributes.
    fn output(entity: &'static str, attributes: Option<Item>) -> Result<Self::Output>;
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
    let key = &E::MODEL.primary;
    item.keys()
        .all(|name| name == key.pk.attribute || key.sk.is_some_and(|sk| name == sk.attribute))
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

/// A condition that is a request's only expression: its text, names and
/// values.
pub(crate) fn condition_only<E>(
    condition: Option<&Condition<E>>,
    context: &'static str,
) -> Result<(Option<String>, entity_core::expr::Rendered)> {
    let mut placeholders = Placeholders::default();
    let text = render_condition(condition, &mut placeholders, context)?;
    Ok((text, placeholders.finish()))
}

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
