//! Guides: pages of prose and complete examples, beside the API reference.
//!
//! * [`attributes`]: every attribute of the derives, and what it generates.
//! * [`paging`]: how `limit`, `page_size` and cursors interact.
//! * [`recipes`]: one-to-many, many-to-many, uniqueness, time series.
//! * [`composition`]: the order a write runs the features in, the read
//!   rule, and the matrix of features × operations.
//! * [`tenancy`]: a tenant's scope, what it completes and checks, and
//!   every operation in it.

#[doc = include_str!("../docs/attributes.md")]
pub mod attributes {}

#[doc = include_str!("../docs/paging.md")]
pub mod paging {}

#[doc = include_str!("../docs/recipes.md")]
pub mod recipes {}

#[doc = include_str!("../docs/composition.md")]
pub mod composition {}

#[doc = include_str!("../docs/tenancy.md")]
pub mod tenancy {}

#[doc = include_str!("../docs/getting_started.md")]
pub mod getting_started {}

#[doc = include_str!("../docs/keys.md")]
pub mod keys {}

#[doc = include_str!("../docs/queries.md")]
pub mod queries {}

#[doc = include_str!("../docs/writes.md")]
pub mod writes {}

#[doc = include_str!("../docs/transactions.md")]
pub mod transactions {}

#[doc = include_str!("../docs/integrity.md")]
pub mod integrity {}

#[doc = include_str!("../docs/lifecycle.md")]
pub mod lifecycle {}

#[doc = include_str!("../docs/sharding.md")]
pub mod sharding {}

#[doc = include_str!("../docs/collections.md")]
pub mod collections {}

#[doc = include_str!("../docs/versions.md")]
pub mod versions {}

#[doc = include_str!("../docs/streams.md")]
pub mod streams {}

#[doc = include_str!("../docs/design.md")]
pub mod design {}

#[doc = include_str!("../docs/diagnostics.md")]
pub mod diagnostics {}

#[doc = include_str!("../docs/testing.md")]
pub mod testing {}

#[doc = include_str!("../docs/benchmarks.md")]
pub mod benchmarks {}
