//! Guides: pages of prose and complete examples, beside the API reference.
//! Every example runs as a test, against the embedded server where it
//! needs one (or only compiles, where it needs AWS).
//!
//! Start here:
//!
//! * [`getting_started`]: the dependency, a first entity, a client, the
//!   table, the operations, the error type.
//! * [`keys`]: composites, the default key format, custom formats of
//!   existing tables, number keys, sparse and multi-attribute indexes,
//!   other tools' layouts.
//! * [`attributes`]: every attribute of the derives, and what it
//!   generates.
//!
//! Reading and writing:
//!
//! * [`queries`]: typed accessors, sending a query, scans, encrypted
//!   cursors, resuming after a failed page.
//! * [`paging`]: how `limit`, `page_size` and cursors interact.
//! * [`writes`]: put, create, upsert, update, patch, delete, remove;
//!   conditions, typed updates, returned items.
//! * [`transactions`]: write and read transactions, batch reads and
//!   writes.
//!
//! Features:
//!
//! * [`integrity`]: timestamps, generated ids, optimistic locking, unique
//!   values, exactly-once writes.
//! * [`lifecycle`]: time to live, soft delete, version history.
//! * [`tenancy`]: a tenant's scope, what it completes and checks, and
//!   every operation in it.
//! * [`sharding`]: a partition key spread over shards, read back as one.
//! * [`compression`]: compressed attributes, and an item's size per
//!   attribute.
//! * [`encryption`]: fields encrypted and signed by the AWS Database
//!   Encryption SDK (feature `encryption`).
//! * [`collections`]: several entities in one partition, one Query, a
//!   typed union.
//! * [`versions`]: reading older items through `upgrade_from`, and
//!   migrations.
//! * [`streams`]: DynamoDB Streams records and Lambda events as typed
//!   changes.
//! * [`capacity`]: rate limits on bulk work (scans, batch writes,
//!   migrations), fixed or adaptive, charged with consumed capacity.
//! * [`design`]: the table design as a NoSQL Workbench model, a Markdown
//!   table or an HTML page.
//! * [`composition`]: the order a write runs the features in, the read
//!   rule, and the matrix of features × operations.
//!
//! Running it:
//!
//! * [`diagnostics`]: hot-partition statistics, tracing spans, `explain()`.
//! * [`testing`]: the embedded server in your tests, a table per test,
//!   faults on demand, cost budgets, DynamoDB Local.
//! * [`recipes`]: one-to-many, many-to-many, uniqueness, time series.
//! * [`compile_errors`]: every error the derives emit, with its fix.
//! * [`benchmarks`]: run time, integrity costs and compile time, measured.

#[doc = include_str!("../docs/getting_started.md")]
pub mod getting_started {}

#[doc = include_str!("../docs/keys.md")]
pub mod keys {}

#[doc = include_str!("../docs/attributes.md")]
pub mod attributes {}

#[doc = include_str!("../docs/queries.md")]
pub mod queries {}

#[doc = include_str!("../docs/paging.md")]
pub mod paging {}

#[doc = include_str!("../docs/writes.md")]
pub mod writes {}

#[doc = include_str!("../docs/transactions.md")]
pub mod transactions {}

#[doc = include_str!("../docs/integrity.md")]
pub mod integrity {}

#[doc = include_str!("../docs/lifecycle.md")]
pub mod lifecycle {}

#[doc = include_str!("../docs/tenancy.md")]
pub mod tenancy {}

#[doc = include_str!("../docs/sharding.md")]
pub mod sharding {}

#[doc = include_str!("../docs/compression.md")]
pub mod compression {}

#[doc = include_str!("../docs/encryption.md")]
pub mod encryption {}

#[doc = include_str!("../docs/collections.md")]
pub mod collections {}

#[doc = include_str!("../docs/versions.md")]
pub mod versions {}

#[doc = include_str!("../docs/streams.md")]
pub mod streams {}

#[doc = include_str!("../docs/capacity.md")]
pub mod capacity {}

#[doc = include_str!("../docs/design.md")]
pub mod design {}

#[doc = include_str!("../docs/composition.md")]
pub mod composition {}

#[doc = include_str!("../docs/diagnostics.md")]
pub mod diagnostics {}

#[doc = include_str!("../docs/testing.md")]
pub mod testing {}

#[doc = include_str!("../docs/recipes.md")]
pub mod recipes {}

#[doc = include_str!("../docs/compile_errors.md")]
pub mod compile_errors {}

#[doc = include_str!("../docs/benchmarks.md")]
pub mod benchmarks {}
