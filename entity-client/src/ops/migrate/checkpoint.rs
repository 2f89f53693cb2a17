//! Where a migration stands, per scan segment, in a form users persist
//! (JSON, or anything serde writes with the `serde` feature) and hand back
//! to resume.

use crate::error::{Error, Result, ValidationError};
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{Entity, Item};
use serde_json::{json, Map, Value};
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
/// let saved = checkpoint.to_json();
/// let restored = MigrationCheckpoint::from_json(&saved)?;
/// assert_eq!(restored, checkpoint);
/// assert!(!restored.is_complete());
/// # Ok::<(), entity_client::Error>(())
/// ```
///
/// With the `serde` feature it also implements serde's `Serialize` and
/// `Deserialize`, writing the same JSON as [`to_json`](Self::to_json).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MigrationCheckpoint {
    /// The entity migrated (its stored name).
    pub entity: String,
    /// One entry per scan segment, in segment order.
    pub segments: Vec<SegmentCheckpoint>,
}

/// Where one scan segment stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
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
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

    /// The checkpoint as JSON: `{"entity": "Task", "segments": ["start",
    /// {"after": {"pk": {"S": ".."}}}, "done"]}`.
    pub fn to_json(&self) -> String {
        let segments: Vec<Value> = self
            .segments
            .iter()
            .map(|segment| match segment {
                SegmentCheckpoint::Start => json!("start"),
                SegmentCheckpoint::Done => json!("done"),
                SegmentCheckpoint::After(key) => {
                    let key: Map<String, Value> = key
                        .iter()
                        .map(|(name, value)| {
                            let value = match value {
                                KeyValue::S(text) => json!({ "S": text }),
                                KeyValue::N(text) => json!({ "N": text }),
                            };
                            (name.clone(), value)
                        })
                        .collect();
                    json!({ "after": key })
                }
            })
            .collect();
        json!({ "entity": self.entity, "segments": segments }).to_string()
    }

    /// Reads back what [`to_json`](Self::to_json) wrote; anything else is
    /// `Error::Validation`.
    pub fn from_json(json: &str) -> Result<Self> {
        let invalid = |why: &str| {
            Error::from(ValidationError::InvalidRequest(format!(
                "not a migration checkpoint: {why}"
            )))
        };
        let value: Value = serde_json::from_str(json).map_err(|e| invalid(&e.to_string()))?;
        let entity = value
            .get("entity")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("no entity"))?;
        let segments = value
            .get("segments")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("no segments"))?
            .iter()
            .map(|segment| match segment {
                Value::String(s) if s == "start" => Ok(SegmentCheckpoint::Start),
                Value::String(s) if s == "done" => Ok(SegmentCheckpoint::Done),
                Value::Object(o) if o.len() == 1 => {
                    let key = o
                        .get("after")
                        .and_then(Value::as_object)
                        .ok_or_else(|| invalid("a segment is not start, after or done"))?;
                    let key = key
                        .iter()
                        .map(|(name, value)| {
                            let typed = value.as_object().filter(|t| t.len() == 1);
                            let text = |tag: &str| typed?.get(tag)?.as_str().map(str::to_owned);
                            match (text("S"), text("N")) {
                                (Some(s), None) => Ok((name.clone(), KeyValue::S(s))),
                                (None, Some(n)) => Ok((name.clone(), KeyValue::N(n))),
                                _ => Err(invalid("a key value is not {\"S\": ..} or {\"N\": ..}")),
                            }
                        })
                        .collect::<Result<BTreeMap<_, _>>>()?;
                    Ok(SegmentCheckpoint::After(key))
                }
                _ => Err(invalid("a segment is not start, after or done")),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            entity: entity.to_owned(),
            segments,
        })
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
