//! Where a migration stands, per scan segment, in a form users persist
//! (serde: JSON or anything else) and hand back to resume.

use crate::error::{Error, Result, ValidationError};
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{Entity, Item};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How far a migration got: for each scan segment, whether it has started,
/// the key it stopped after, or that it is done.
///
/// Reported with every [`MigrationProgress`](super::MigrationProgress) and in
/// the [`MigrationReport`](super::MigrationReport); hand it to
/// [`Migrate::resume`](super::Migrate::resume) to continue. Every page it
/// covers was fully processed; pages after it may have been partly
/// processed, which is harmless since rewrites are idempotent.
///
/// ```
/// use entity_client::MigrationCheckpoint;
///
/// let checkpoint = MigrationCheckpoint::start("Task", 4);
/// let saved = serde_json::to_string(&checkpoint).unwrap();
/// let restored: MigrationCheckpoint = serde_json::from_str(&saved).unwrap();
/// assert_eq!(restored, checkpoint);
/// assert!(!restored.is_complete());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigrationCheckpoint {
    /// The entity migrated (its stored name).
    pub entity: String,
    /// One entry per scan segment, in segment order.
    pub segments: Vec<SegmentCheckpoint>,
}

/// Where one scan segment stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentCheckpoint {
    /// Not started.
    Start,
    /// Every item up to this table key (DynamoDB's `LastEvaluatedKey`) has
    /// been processed.
    After(BTreeMap<String, KeyValue>),
    /// Every item of the segment has been processed.
    Done,
}

/// A table key attribute's value in a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyValue {
    /// A string (`S`).
    S(String),
    /// A number (`N`), as DynamoDB writes it.
    N(String),
}

impl MigrationCheckpoint {
    /// A migration of `entity` that has not started, in `segments` segments.
    pub fn start(entity: impl Into<String>, segments: usize) -> Self {
        Self {
            entity: entity.into(),
            segments: vec![SegmentCheckpoint::Start; segments],
        }
    }

    /// Whether every segment is done.
    pub fn is_complete(&self) -> bool {
        self.segments
            .iter()
            .all(|segment| matches!(segment, SegmentCheckpoint::Done))
    }

    /// Refuses a checkpoint of another entity, with no segments, or whose
    /// keys are not table keys of `E`.
    pub(crate) fn check<E: Entity>(&self) -> Result<()> {
        let invalid = |reason: String| Error::from(ValidationError::InvalidRequest(reason));
        if self.entity != E::MODEL.name {
            return Err(invalid(format!(
                "a migration checkpoint of {:?} cannot resume a migration of {:?}",
                self.entity,
                E::MODEL.name
            )));
        }
        if self.segments.is_empty() {
            return Err(invalid("a migration checkpoint with no segments".into()));
        }
        for segment in &self.segments {
            if let SegmentCheckpoint::After(key) = segment {
                crate::ops::scan::check_cursor_key::<E>(&to_item(key))?;
            }
        }
        Ok(())
    }
}

impl SegmentCheckpoint {
    /// The position after a page whose `LastEvaluatedKey` was `last`.
    pub(crate) fn after(last: Option<&Item>) -> Result<Self> {
        let Some(last) = last else {
            return Ok(Self::Done);
        };
        let mut key = BTreeMap::new();
        for (name, value) in last {
            let value = match value {
                AttributeValue::S(text) => KeyValue::S(text.clone()),
                AttributeValue::N(text) => KeyValue::N(text.clone()),
                _ => {
                    return Err(ValidationError::InvalidRequest(format!(
                        "table key attribute {name:?} is neither a string nor a number"
                    ))
                    .into())
                }
            };
            key.insert(name.clone(), value);
        }
        Ok(Self::After(key))
    }

    /// The `ExclusiveStartKey` to continue from; `None` to start (or for a
    /// finished segment, which is not read).
    pub(crate) fn start_key(&self) -> Option<Item> {
        match self {
            Self::After(key) => Some(to_item(key)),
            Self::Start | Self::Done => None,
        }
    }
}

fn to_item(key: &BTreeMap<String, KeyValue>) -> Item {
    key.iter()
        .map(|(name, value)| {
            let value = match value {
                KeyValue::S(text) => AttributeValue::S(text.clone()),
                KeyValue::N(text) => AttributeValue::N(text.clone()),
            };
            (name.clone(), value)
        })
        .collect()
}
