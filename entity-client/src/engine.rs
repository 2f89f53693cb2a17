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
    /// The moto server (`moto_server`), a mock of AWS for tests: it
    /// accepts client request tokens and ignores them.
    Moto,
}

impl Engine {
    /// What the engine supports.
    pub const fn capabilities(self) -> Capabilities {
        match self {
            Engine::DynamoDb | Engine::DynamoDbLocal | Engine::Dynoxide => Capabilities {
                transactions: true,
                client_request_tokens: true,
                multi_attribute_keys: true,
                ttl: true,
            },
            Engine::Alternator => Capabilities {
                transactions: false,
                client_request_tokens: false,
                multi_attribute_keys: false,
                ttl: true,
            },
            Engine::Moto => Capabilities {
                transactions: true,
                client_request_tokens: false,
                multi_attribute_keys: false,
                ttl: true,
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
            Engine::Moto => "moto",
        })
    }
}

/// The features that differ between engines: declared by
/// [`Engine::capabilities`], or detected on the live endpoint by
/// [`Client::probe`](crate::Client::probe).
///
/// Without transactions: `transact_write` and writes that need one (unique
/// constraints, history snapshots) are refused. Without transactions or
/// without honoured client request tokens, exactly-once writes cannot be
/// kept: a write that needs one (a create, a conditional or versioned
/// write, an `add`, a `remove`, a caller's idempotency token) is refused
/// with [`Error::Unsupported`](crate::Error::Unsupported), never silently
/// sent as a call a lost response can repeat; a client that accepts that
/// says so with
/// [`Client::with_exactly_once(false)`](crate::Client::with_exactly_once).
/// Without multi-attribute keys: `create_table` refuses a multi-attribute
/// GSI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// `TransactWriteItems` and `TransactGetItems`.
    pub transactions: bool,
    /// A `TransactWriteItems` resent with the same `ClientRequestToken`
    /// within ten minutes succeeds without applying again: what
    /// exactly-once writes stand on.
    pub client_request_tokens: bool,
    /// GSIs keyed on several attributes.
    pub multi_attribute_keys: bool,
    /// `UpdateTimeToLive` / `DescribeTimeToLive`.
    pub ttl: bool,
}

impl Capabilities {
    /// Whether writes can be applied exactly once: transactions whose
    /// client request tokens are honoured.
    pub const fn exactly_once(self) -> bool {
        self.transactions && self.client_request_tokens
    }
}
