//! Run `#[derive(Entity)]` entities against DynamoDB, through the official
//! `aws-sdk-dynamodb`.
//!
//! This is the crate applications depend on: it re-exports `entity-core`
//! (the derives, key codec and expression model) and adds a [`Client`] whose
//! builders send on `.await`.
//!
//! ```
//! use entity_client::Entity;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(schema = "app")]
//! #[pk(project_id)]
//! #[sk(task_id)]
//! struct Task { project_id: String, task_id: String, title: String, done: bool }
//!
//! # #[cfg(not(feature = "embedded"))] fn main() {}
//! # #[cfg(feature = "embedded")]
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = entity_client::EmbeddedDynamo::start().await?; // or Client::new(sdk_client, "app") for AWS
//! let client = server.client("app");
//! client.create_table(&[Task::MODEL]).await?;
//!
//! let task = Task { project_id: "p1".into(), task_id: "t1".into(), title: "Ship".into(), done: false };
//! client.create(&task).await?;
//!
//! let f = Task::fields();
//! let done: Task = client.patch(Task::key("p1", "t1")).set(f.done, true).return_new().await?;
//! assert!(done.done);
//!
//! let page = client.query(Task::primary("p1")).await?;
//! assert_eq!(page.items.len(), 1);
//! # Ok(()) }
//! ```
//!
//! Every operation fails with one [`Error`] type whose variants say what
//! happened to the data; nothing the server or the caller sends makes it
//! panic.
//!
//! # Guides
//!
//! The [`guide`] pages explain each part with examples that run as tests:
//!
//! * [`guide::getting_started`]: the dependency, a first entity, a client,
//!   the table, the operations, the error type.
//! * [`guide::keys`]: key composites and formats, sparse and
//!   multi-attribute indexes; [`guide::attributes`], every attribute of
//!   the derives.
//! * [`guide::queries`] and [`guide::paging`]: typed queries, scans,
//!   streams, cursors.
//! * [`guide::writes`]: writes, conditions, typed updates.
//! * [`guide::transactions`]: transactions and batches.
//! * [`guide::integrity`]: timestamps, generated ids, optimistic locking,
//!   unique values, exactly-once writes.
//! * [`guide::lifecycle`]: time to live, soft delete, history.
//! * [`guide::tenancy`]: multi-tenant entities and the client's scopes.
//! * [`guide::sharding`]: write sharding of hot partition keys.
//! * [`guide::collections`]: several entities read with one Query.
//! * [`guide::versions`]: entity versions and migrations.
//! * [`guide::streams`]: DynamoDB Streams and Lambda events.
//! * [`guide::capacity`]: rate limits on scans, batch writes and
//!   migrations.
//! * [`guide::design`]: the table design export.
//! * [`guide::composition`]: how the features compose, operation by
//!   operation.
//! * [`guide::diagnostics`]: hot partitions, tracing, `explain()`.
//! * [`guide::testing`]: testing your application.
//! * [`guide::recipes`]: one-to-many, many-to-many, uniqueness, time
//!   series.
//! * [`guide::compile_errors`]: every compile error, with its fix.
//! * [`guide::benchmarks`]: what it costs, measured.
//!
//! `cargo doc --open` on your own crate documents the API the derive
//! generated for your entities.
//!
//! # Features
//!
//! | feature | brings |
//! |---|---|
//! | `default-https-client` (default) | the SDK's default HTTPS client, which [`local_sdk_client`] and `aws-config` clients use; off, you give the SDK client an HTTP client of your own |
//! | `behavior-version-latest` (default) | SDK configs default to the latest behavior version |
//! | `embedded` | [`EmbeddedDynamo`]: an in-process DynamoDB-compatible server (dynoxide, SQLite in memory) on `127.0.0.1`, for tests and examples, and [`faults`]: throttling, server errors, dropped connections, partial batches and delays on demand; adds tokio's `net` |
//! | `chrono` | `chrono::DateTime<Utc>` as key composites, attributes and managed timestamps |
//! | `time` | `time::OffsetDateTime` likewise |
//! | `tracing` | a `tracing` span per operation with its cost: requests, retries, capacity, items |
//! | `serde` | `#[entity(serde)]` fields (nested types through `serde_dynamo`), `set_serde` in updates, serde's traits on `MigrationCheckpoint` |
//! | `streams` | [`streams`] decodes `aws-sdk-dynamodbstreams` records; `streams::StreamReader` reads a table's stream |
//! | `lambda` | [`streams`] decodes the DynamoDB stream events AWS Lambda delivers (`aws_lambda_events`) |

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod client;
mod cursor;
pub mod design;
#[cfg(feature = "embedded")]
mod embedded;
#[cfg(feature = "encryption")]
#[cfg_attr(docsrs, doc(cfg(feature = "encryption")))]
pub mod encryption;
mod engine;
mod error;
#[cfg(feature = "embedded")]
#[cfg_attr(docsrs, doc(cfg(feature = "embedded")))]
pub mod faults;
pub mod guide;
mod keys;
pub mod limits;
mod ops;
mod rate_limit;
mod scoping;
pub mod stats;
pub mod streams;
mod tenancy;
mod trace;

/// What a table's stream records ([`CreateTable::stream`]): the SDK's type,
/// here so that a stream needs no dependency of your own on a matching
/// SDK version.
pub use aws_sdk_dynamodb::types::StreamViewType;
pub use client::{local_sdk_client, BatchPolicy, Client, Clock, SystemClock};
#[cfg(feature = "embedded")]
#[cfg_attr(docsrs, doc(cfg(feature = "embedded")))]
pub use embedded::{EmbeddedDynamo, EmbeddedError};
pub use engine::{Capabilities, Engine};
pub use entity_core::*;
pub use error::{
    CancellationReason, Error, FailedCondition, ProjectionMismatch, Result, SdkError,
    ValidationError,
};
pub use ops::batch::get::{BatchGet, BatchGetOutput};
pub use ops::batch::write::{BatchWrite, BatchWriteOutput, RefusedWrite, UnprocessedWrite};
pub use ops::delete::{Delete, Restore};
pub use ops::drift::Drift;
pub use ops::explain::{Explain, Explained, Request};
pub use ops::get::{Get, GetProjected, Projection};
pub use ops::get_unique::GetUnique;
pub use ops::history_reader::History;
pub use ops::hydrate::Hydrate;
pub use ops::migrate::{
    KeyValue, Migrate, MigrationCheckpoint, MigrationCounts, MigrationProgress, MigrationReport,
    SegmentCheckpoint, UnreadableItem,
};
pub use ops::paging::Page;
pub use ops::probe::{Outcome, Probe, ProbeCheck};
pub use ops::query::QueryRequest;
pub use ops::rekey::Rekey;
pub use ops::scan::Scan;
pub use ops::table::{CreateTable, TableDesign};
pub use ops::table_projection::ProjectionDesign;
pub use ops::transact::{TransactGet, TransactGetOutput, TransactWrite};
pub use ops::unique::UniqueConflict;
pub use ops::update::UpdateItem;
pub use ops::write::{Put, Upsert};
pub use ops::{
    ReturnNew, ReturnNothing, ReturnOld, ReturnStored, ReturnUpdatedNew, ReturnUpdatedOld,
    Returning,
};
pub use rate_limit::{RateLimit, Rates};
pub use stats::{Stats, StatsConfig};
pub use tenancy::{TenantBatchWrite, TenantClient};

/// A client's scope, part of its type: what [`Client<S>`](Client)
/// reaches, and how it completes keys and queries.
///
/// Every operation is defined once, for every scope, and asks the scope
/// only what differs between scopes:
///
/// | scope | made by | entities | keys and queries | writes |
/// |---|---|---|---|---|
/// | [`Unscoped`](scope::Unscoped) | `Client::new`, the default | without a tenant | as given | as given |
/// | [`Tenant`](scope::Tenant) | `client.tenant(t)` | tenant entities | tenant-free ones completed with `t`, whole ones checked | refused for another tenant's entity; only over an absent item or one of the entity |
/// | [`CrossTenant`](scope::CrossTenant) | `client.cross_tenant()` | every entity | as given | as given |
///
/// An operation that means nothing in a scope does not compile there,
/// with the reason and the way out: a tenant entity on the plain client,
/// an entity without a tenant on a tenant's client, a scan on a tenant's
/// client. See the [tenancy guide](crate::guide::tenancy).
pub mod scope {
    pub use crate::scoping::{CrossTenant, Reaches, Reads, Scans, Scope, ScopeKey, Unscoped};
    pub use crate::tenancy::Tenant;
}

/// The README's examples, compiled and run as doctests (they start the
/// embedded server, so they need the `embedded` feature, which
/// `cargo test --workspace` enables).
#[cfg(all(doctest, feature = "embedded"))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
