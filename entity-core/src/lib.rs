//! The runtime of a DynamoDB single-table entity framework.
//!
//! Annotate a struct with `#[derive(Entity)]` and get, at compile time:
//! composers and parsers for the table key and every index key, a typed
//! query accessor per index, and item conversion. Bad key composites are
//! compile errors on the offending token.
//!
//! ```
//! use entity_core::{Entity, KeyPart};
//!
//! #[derive(Entity, Clone, PartialEq, Debug)]
//! #[entity(schema = "myapp", name = "Task")]
//! #[pk(task_id)]
//! #[sk()]
//! #[index(by_project(gsi = "gsi1", pk(project_id), sk(priority, status)))]
//! struct Task {
//!     task_id: String,
//!     project_id: String,
//!     priority: u8,
//!     status: Status,
//!     title: Option<String>,
//! }
//!
//! #[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
//! enum Status { Open, Done }
//!
//! let task = Task {
//!     task_id: "t-001".into(),
//!     project_id: "proj-alpha".into(),
//!     priority: 3,
//!     status: Status::Open,
//!     title: None,
//! };
//! assert_eq!(task.pk(), "$myapp#v1#task#task_id_t-001");
//! assert_eq!(task.by_project_sk(), "$myapp#v1#task#priority_003#status_Open");
//!
//! // Typed accessor: pk composites required, sk composites left to right.
//! let q = Task::by_project("proj-alpha").priority().eq(3).descending().build();
//! assert_eq!(q.index_name(), Some("gsi1"));
//! assert_eq!(q.key_condition_expression(), "#pk = :pk AND begins_with(#sk, :sk1)");
//!
//! // Item conversion round trip.
//! let item = task.to_item()?;
//! assert_eq!(Task::from_item(item)?, task);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Applications depend on `entity-client`, which re-exports this crate;
//! its guides (`entity_client::guide`) explain every attribute and
//! feature.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate self as entity_core;

pub mod attr;
pub mod collection;
pub mod compress;
mod entity;
mod error;
pub mod expr;
mod item_writer;
pub mod key;
pub mod lifecycle;
pub mod managed;
pub mod model;
mod native_key;
mod overlap;
mod query;
pub mod size;
pub mod sort_key;
pub mod tenant;
pub mod view;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use attr::{AttributeError, FromAttribute, ToAttribute};
pub use collection::{Collection, CollectionMember};
pub use entity::{Entity, PrimaryKey, Readable};
pub use entity_derive::{Collection, Entity, KeyPart};
pub use error::{DecodeError, EncodeError};
pub use item_writer::ItemWriter;
pub use key::{KeyArg, KeyError, KeyPart, KeyPartError, KeyReader, KeyResult};
pub use lifecycle::TtlValue;
pub use managed::{
    EpochMillis, EpochSeconds, GeneratedId, LockVersion, Timestamp, UniqueKey, WithoutSoftDelete,
    WithoutUnique, WithoutVersion,
};
pub use model::{
    EntityModel, FieldModel, IndexKind, IndexModel, IndexProjection, KeyModel, NativeKeyModel,
    ScalarType, VersionType,
};
pub use native_key::NativeKey;
pub use overlap::Overlap;
pub use query::{NativeCondition, NativeOp, Query, Sharding, SortCondition};
pub use tenant::{
    IntoTenantKey, KeyTenant, KeyTenantReader, NotTenant, Tenant, TenantEntity, TenantKey,
    TenantModel, TenantReadable,
};
pub use view::IndexView;

/// A DynamoDB item: attribute names to values.
pub type Item = std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>;
