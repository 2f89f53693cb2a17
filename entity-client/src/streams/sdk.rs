//! Records of `aws-sdk-dynamodbstreams` (feature `streams`). That SDK has an
//! `AttributeValue` of its own, the same shape as `aws-sdk-dynamodb`'s; its
//! values are converted one to one (the binary values are the same
//! `aws_smithy_types::Blob`).

use super::{EventName, RecordImages, StreamError, StreamRecord};
use crate::error::Result;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types::{
    AttributeValue as StreamValue, OperationType, Record, StreamRecord as Images,
};
use entity_core::Item;
use std::collections::HashMap;

impl StreamRecord for Record {
    fn images(&self) -> Result<RecordImages> {
        let event = match self.event_name() {
            Some(OperationType::Insert) => EventName::Insert,
            Some(OperationType::Modify) => EventName::Modify,
            Some(OperationType::Remove) => EventName::Remove,
            Some(other) => return Err(StreamError::UnknownEvent(other.as_str().to_owned()).into()),
            None => return Err(StreamError::UnknownEvent(String::new()).into()),
        };
        let images = self.dynamodb();
        let image = |pick: fn(&Images) -> Option<&HashMap<String, StreamValue>>| {
            images.and_then(pick).map(item).transpose()
        };
        Ok(RecordImages {
            event,
            sequence_number: images.and_then(Images::sequence_number).map(str::to_owned),
            old_image: image(Images::old_image)?,
            new_image: image(Images::new_image)?,
        })
    }
}

/// A streams item as an `aws-sdk-dynamodb` item.
fn item(values: &HashMap<String, StreamValue>) -> Result<Item, StreamError> {
    values
        .iter()
        .map(|(name, value)| Ok((name.clone(), attribute(value)?)))
        .collect()
}

/// A streams attribute value as an `aws-sdk-dynamodb` one: every type,
/// nested lists and maps included.
pub(crate) fn attribute(value: &StreamValue) -> Result<AttributeValue, StreamError> {
    Ok(match value {
        StreamValue::S(text) => AttributeValue::S(text.clone()),
        StreamValue::N(number) => AttributeValue::N(number.clone()),
        StreamValue::B(bytes) => AttributeValue::B(bytes.clone()),
        StreamValue::Bool(value) => AttributeValue::Bool(*value),
        StreamValue::Null(value) => AttributeValue::Null(*value),
        StreamValue::Ss(set) => AttributeValue::Ss(set.clone()),
        StreamValue::Ns(set) => AttributeValue::Ns(set.clone()),
        StreamValue::Bs(set) => AttributeValue::Bs(set.clone()),
        StreamValue::L(list) => {
            AttributeValue::L(list.iter().map(attribute).collect::<Result<_, _>>()?)
        }
        StreamValue::M(map) => AttributeValue::M(item(map)?),
        other => return Err(StreamError::UnknownAttributeType(format!("{other:?}"))),
    })
}
