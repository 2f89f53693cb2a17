//! Conversion between Rust values and DynamoDB `AttributeValue`s.
//!
//! The generated `to_item`/`from_item` call these traits field by field, with
//! no intermediate representation: that is what makes them several times
//! faster than going through serde. Nested types that only implement serde
//! opt in with `#[entity(serde)]` on the field and go through `serde_dynamo`.

mod collections;
mod scalar;
pub(crate) mod tuple;

use aws_sdk_dynamodb::types::AttributeValue;
use std::fmt;

pub use collections::{SetElement, SetKind, SetMember};

/// Writes a value as a DynamoDB attribute.
///
/// `Ok(None)` means "store nothing": `Option::None` and empty sets are
/// omitted from the item rather than written as `NULL` or rejected by
/// DynamoDB.
///
/// ```
/// use entity_core::ToAttribute;
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// assert_eq!(42u32.to_attribute().unwrap(), Some(AttributeValue::N("42".into())));
/// assert_eq!(None::<String>.to_attribute().unwrap(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a DynamoDB attribute by the entity derive",
    label = "no `ToAttribute` for this type",
    note = "if the type implements serde's `Serialize` and `Deserialize`, mark the field `#[entity(serde)]`"
)]
pub trait ToAttribute {
    /// The attribute for this value, or `None` to leave it out of the item.
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError>;
}

/// Reads a value back from a DynamoDB attribute.
///
/// ```
/// use entity_core::FromAttribute;
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// assert_eq!(u32::from_attribute(AttributeValue::N("42".into())).unwrap(), 42);
/// assert!(u32::from_attribute(AttributeValue::S("42".into())).is_err());
/// assert_eq!(<Option<u32>>::from_missing(), Some(None));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a DynamoDB attribute by the entity derive",
    label = "no `FromAttribute` for this type",
    note = "if the type implements serde's `Serialize` and `Deserialize`, mark the field `#[entity(serde)]`"
)]
pub trait FromAttribute: Sized {
    /// Decodes an attribute that is present in the item.
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError>;

    /// The value of an attribute that is absent from the item, if absence is
    /// a valid encoding (`None` for options, empty for sets).
    fn from_missing() -> Option<Self> {
        None
    }
}

/// Why one attribute could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttributeError {
    /// The attribute is absent and the field is required.
    Missing,
    /// The attribute has another DynamoDB type.
    WrongType {
        /// The DynamoDB type the field needs (`S`, `N`, `BOOL`, ...).
        expected: &'static str,
        /// The DynamoDB type found.
        found: &'static str,
    },
    /// The attribute has the right type but an unusable value.
    Invalid(String),
}

impl fmt::Display for AttributeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing => f.write_str("missing"),
            Self::WrongType { expected, found } => {
                write!(f, "expected DynamoDB type {expected}, found {found}")
            }
            Self::Invalid(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for AttributeError {}

/// The DynamoDB type name of an attribute value, for error messages.
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "an unknown type",
    }
}

pub(crate) fn wrong_type(expected: &'static str, found: &AttributeValue) -> AttributeError {
    AttributeError::WrongType {
        expected,
        found: type_name(found),
    }
}

/// Stores a serde value as an attribute through `serde_dynamo` (fields
/// marked `#[entity(serde)]`).
#[cfg(feature = "serde")]
pub fn to_serde_attribute<T: serde::Serialize + ?Sized>(
    value: &T,
) -> Result<Option<AttributeValue>, AttributeError> {
    match serde_dynamo::to_attribute_value::<_, AttributeValue>(value) {
        Ok(AttributeValue::Null(_)) => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(e) => Err(AttributeError::Invalid(e.to_string())),
    }
}

/// Reads a serde value back through `serde_dynamo` (fields marked
/// `#[entity(serde)]`).
#[cfg(feature = "serde")]
pub fn from_serde_attribute<T: serde::de::DeserializeOwned>(
    value: AttributeValue,
) -> Result<T, AttributeError> {
    serde_dynamo::from_attribute_value(value).map_err(|e| AttributeError::Invalid(e.to_string()))
}

/// The value of an absent `#[entity(serde)]` attribute: whatever serde makes
/// of `NULL` (so `Option` fields read as `None`).
#[cfg(feature = "serde")]
pub fn serde_from_missing<T: serde::de::DeserializeOwned>() -> Option<T> {
    serde_dynamo::from_attribute_value(AttributeValue::Null(true)).ok()
}
