//! The DynamoDB stream events AWS Lambda delivers (feature `lambda`):
//! `aws_lambda_events`' `EventRecord`, whose images are `serde_dynamo`
//! items, converted to `aws-sdk-dynamodb` items by serde_dynamo.

use super::{EventName, RecordImages, StreamRecord};
use crate::error::Result;
use aws_lambda_events::event::dynamodb::EventRecord;
use entity_core::Item;

impl StreamRecord for EventRecord {
    fn images(&self) -> Result<RecordImages> {
        Ok(RecordImages {
            event: EventName::parse(&self.event_name)?,
            sequence_number: self.change.sequence_number.clone(),
            old_image: image(&self.change.old_image),
            new_image: image(&self.change.new_image),
        })
    }
}

/// The image, or `None` for one the record lacks: the event reads a missing
/// image as an empty item, and a stored item is never empty (it holds its
/// key).
fn image(image: &serde_dynamo::Item) -> Option<Item> {
    (!image.is_empty()).then(|| Item::from(image.clone()))
}
