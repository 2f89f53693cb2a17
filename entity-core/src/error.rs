//! Errors of item conversion.

use crate::attr::AttributeError;

/// An entity could not be written as an item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{entity}.{attribute} cannot be stored: {source}")]
pub struct EncodeError {
    /// The entity being written.
    pub entity: &'static str,
    /// The attribute that failed.
    pub attribute: &'static str,
    /// Why.
    #[source]
    pub source: AttributeError,
}

/// An item could not be read as an entity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The item belongs to another entity (or to none): its identity
    /// attribute does not name this entity.
    #[error("item is not a {expected}: its `{attribute}` attribute is {}", found.as_deref().map_or("missing".to_owned(), |f| format!("`{f}`")))]
    WrongEntity {
        /// The entity that was expected.
        expected: &'static str,
        /// The identity attribute.
        attribute: &'static str,
        /// What the item holds there, if anything.
        found: Option<String>,
    },
    /// One attribute is missing or cannot be converted.
    #[error("{entity}.{attribute}: {source}")]
    Attribute {
        /// The entity being read.
        entity: &'static str,
        /// The attribute that failed.
        attribute: &'static str,
        /// Why.
        #[source]
        source: AttributeError,
    },
}

impl DecodeError {
    /// The entity being read when this happened.
    pub fn entity(&self) -> &'static str {
        match self {
            Self::WrongEntity { expected, .. } => expected,
            Self::Attribute { entity, .. } => entity,
        }
    }

    /// The attribute that failed.
    pub fn attribute(&self) -> &'static str {
        match self {
            Self::WrongEntity { attribute, .. } | Self::Attribute { attribute, .. } => attribute,
        }
    }
}
