//! What one request contributes to the statistics: read from its typed
//! input before it is sent ([`RequestFacts`]) and from its typed output or
//! error after each attempt ([`Outcome`]).

use std::fmt;

/// A DynamoDB operation the recorder follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Operation {
    /// `GetItem`.
    GetItem,
    /// `PutItem`.
    PutItem,
    /// `UpdateItem`.
    UpdateItem,
    /// `DeleteItem`.
    DeleteItem,
    /// `Query`.
    Query,
    /// `Scan`.
    Scan,
    /// `BatchGetItem`.
    BatchGetItem,
    /// `BatchWriteItem`.
    BatchWriteItem,
    /// `TransactGetItems`.
    TransactGetItems,
    /// `TransactWriteItems`.
    TransactWriteItems,
}

impl Operation {
    /// Whether it consumes read capacity (otherwise write capacity).
    pub fn is_read(self) -> bool {
        matches!(
            self,
            Self::GetItem | Self::Query | Self::Scan | Self::BatchGetItem | Self::TransactGetItems
        )
    }

    /// The operation's name in the DynamoDB API.
    pub fn name(self) -> &'static str {
        match self {
            Self::GetItem => "GetItem",
            Self::PutItem => "PutItem",
            Self::UpdateItem => "UpdateItem",
            Self::DeleteItem => "DeleteItem",
            Self::Query => "Query",
            Self::Scan => "Scan",
            Self::BatchGetItem => "BatchGetItem",
            Self::BatchWriteItem => "BatchWriteItem",
            Self::TransactGetItems => "TransactGetItems",
            Self::TransactWriteItems => "TransactWriteItems",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A partition key as the statistics hold it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyLabel {
    /// The value itself ([`KeyMode::Raw`](super::KeyMode::Raw)).
    Raw(String),
    /// Its keyed hash ([`KeyMode::Hashed`](super::KeyMode::Hashed)).
    Hashed(u64),
}

impl fmt::Display for KeyLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Raw(value) => f.write_str(value),
            Self::Hashed(hash) => write!(f, "#{hash:016x}"),
        }
    }
}

/// What a request's input says: where it goes and how it reads.
///
/// Batches and transactions are attributed to the first table they name
/// (one table is the norm in single-table design); each key they touch is
/// counted once, with an even share of the capacity.
#[derive(Debug, Clone)]
pub(crate) struct RequestFacts {
    pub(crate) operation: Operation,
    pub(crate) table: String,
    pub(crate) index: Option<String>,
    /// Partition keys touched, one per item (none for a scan).
    pub(crate) keys: Vec<KeyLabel>,
    /// A `FilterExpression` is set.
    pub(crate) filtered: bool,
    /// A `Limit` is set.
    pub(crate) limited: bool,
    /// An `ExclusiveStartKey` is set: a page after the first.
    pub(crate) continuation: bool,
    /// The largest item written, in bytes (0 if none).
    pub(crate) largest_item: usize,
}

/// What a successful attempt's output says.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Outcome {
    pub(crate) read_units: f64,
    pub(crate) write_units: f64,
    pub(crate) returned: u64,
    pub(crate) scanned: u64,
    /// The largest item read, in bytes (0 if none was measured).
    pub(crate) largest_item: usize,
}
