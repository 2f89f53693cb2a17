//! Which DynamoDB-API engine the client talks to, and what it can do.
//!
//! Engines that speak DynamoDB's API differ: ScyllaDB Alternator has no
//! `TransactWriteItems` and no multi-attribute keys. A client told its
//! engine refuses what the engine lacks before sending, with
//! [`Error::Unsupported`](crate::Error::Unsupported) saying why, or degrades
//! as documented here, instead of failing with a raw service error.

use std::fmt;

/// A DynamoDB-API engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// Amazon DynamoDB (the default).
    #[default]
    DynamoDb,
    /// Amazon DynamoDB Local.
    DynamoDbLocal,
    /// dynoxide, the embedded server of tests and examples.
    Dynoxide,
    /// ScyllaDB Alternator.
    Alternator,
}

impl Engine {
    /// What the engine supports.
    pub const fn capabilities(self) -> Capabilities {
        match self {
            Engine::DynamoDb | Engine::DynamoDbLocal | Engine::Dynoxide => Capabilities {
                transactions: true,
                multi_attribute_keys: true,
            },
            Engine::Alternator => Capabilities {
                transactions: false,
                multi_attribute_keys: false,
            },
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::DynamoDb => "DynamoDB",
            Engine::DynamoDbLocal => "DynamoDB Local",
            Engine::Dynoxide => "dynoxide",
            Engine::Alternator => "ScyllaDB Alternator",
        })
    }
}

/// The features that differ between engines.
///
/// Without transactions: `transact_write` and writes that need one (unique
/// constraints, history snapshots) are refused; exactly-once routing
/// degrades to single-item calls, which a lost response can repeat (as
/// [`Client::with_exactly_once(false)`](crate::Client::with_exactly_once)).
/// Without multi-attribute keys: `create_table` refuses a multi-attribute
/// GSI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// `TransactWriteItems` and `TransactGetItems`.
    pub transactions: bool,
    /// GSIs keyed on several attributes.
    pub multi_attribute_keys: bool,
}
