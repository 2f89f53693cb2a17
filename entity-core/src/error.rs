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
    /// The item is of this entity but not of its current version, and the
    /// entity declares no `upgrade_from` that reads that version.
    #[error("item is a {entity} whose version (`{attribute}`) is {}, not the current {current}: declare `#[entity(upgrade_from = ...)]` to read it", stored.as_deref().map_or("missing".to_owned(), |s| format!("`{s}`")))]
    Version {
        /// The entity being read.
        entity: &'static str,
        /// The version attribute.
        attribute: &'static str,
        /// The version the item holds, as stored, if any.
        stored: Option<String>,
        /// The entity's current version.
        current: u32,
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
    /// A `#[entity(compress)]` attribute holds a compressed value whose
    /// header or payload cannot be read (an unknown format version or
    /// codec, or corrupt bytes).
    #[error("{entity}.{attribute}: {source}")]
    Compressed {
        /// The entity being read.
        entity: &'static str,
        /// The compressed attribute.
        attribute: &'static str,
        /// Why.
        #[source]
        source: crate::compress::CompressionError,
    },
}

impl DecodeError {
    /// The entity being read when this happened.
    pub fn entity(&self) -> &'static str {
        match self {
            Self::WrongEntity { expected, .. } => expected,
            Self::Version { entity, .. }
            | Self::Attribute { entity, .. }
            | Self::Compressed { entity, .. } => entity,
        }
    }

    /// The attribute that failed.
    pub fn attribute(&self) -> &'static str {
        match self {
            Self::WrongEntity { attribute, .. }
            | Self::Version { attribute, .. }
            | Self::Attribute { attribute, .. }
            | Self::Compressed { attribute, .. } => attribute,
        }
    }

    /// The item is not one this type reads: another entity's, or another
    /// version's with no upgrade. Queries and scans skip such items.
    pub fn is_foreign(&self) -> bool {
        matches!(self, Self::WrongEntity { .. } | Self::Version { .. })
    }
}
