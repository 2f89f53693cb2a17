//! The errors of decoding and reading DynamoDB Streams, and the names
//! they carry: vocabulary, re-exported by [`crate::streams`].

use std::fmt;

/// What a stream record says happened to the item (DynamoDB's
/// `eventName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventName {
    /// `INSERT`: a new item.
    Insert,
    /// `MODIFY`: an existing item was written.
    Modify,
    /// `REMOVE`: the item was deleted.
    Remove,
}

impl EventName {
    /// Reads DynamoDB's name of the event.
    pub fn parse(name: &str) -> Result<Self, StreamError> {
        match name {
            "INSERT" => Ok(Self::Insert),
            "MODIFY" => Ok(Self::Modify),
            "REMOVE" => Ok(Self::Remove),
            other => Err(StreamError::UnknownEvent(other.to_owned())),
        }
    }

    /// DynamoDB's name of the event.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Insert => "INSERT",
            Self::Modify => "MODIFY",
            Self::Remove => "REMOVE",
        }
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which image of the item a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Image {
    /// The item before the change (`OldImage`).
    Old,
    /// The item after the change (`NewImage`).
    New,
}

impl fmt::Display for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Image::Old => "OldImage",
            Image::New => "NewImage",
        })
    }
}

/// Why a stream record could not be decoded or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The record lacks an image its event needs: the stream's view type
    /// is not `NEW_AND_OLD_IMAGES`.
    #[error("a {event} record without its {image} (sequence number {}): decoding needs the stream view type NEW_AND_OLD_IMAGES", sequence_number.as_deref().unwrap_or("unknown"))]
    MissingImage {
        /// The record's event.
        event: EventName,
        /// The image it lacks.
        image: Image,
        /// The record's sequence number, when it has one.
        sequence_number: Option<String>,
    },
    /// An event name other than `INSERT`, `MODIFY` and `REMOVE` (or none).
    #[error("a stream record of unknown event {0:?}")]
    UnknownEvent(String),
    /// An attribute value of a type this client does not know (a newer
    /// SDK's).
    #[error("a stream record holds an attribute value of unknown type: {0}")]
    UnknownAttributeType(String),
    /// The table has no stream.
    #[error(
        "table {table} has no stream; create it with `.stream(StreamViewType::NewAndOldImages)`"
    )]
    NoStream {
        /// The table.
        table: String,
    },
    /// A DynamoDB Streams request failed.
    #[error("{operation} failed: {source}")]
    Service {
        /// The operation (`DescribeStream`, `GetShardIterator`, `GetRecords`).
        operation: &'static str,
        /// The SDK error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}
