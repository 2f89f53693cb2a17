//! The expression model: typed field handles, conditions and filters, update
//! actions and projections, rendered with `#name`/`:value` placeholders only.
//!
//! `#[derive(Entity)]` generates a handle per field (`Task::fields().title`),
//! typed by entity, value type and role, so a condition on another entity's
//! field, a value of the wrong type, or an update of a table key composite
//! does not compile.

mod apply;
mod attr;
mod condition;
mod placeholders;
mod update;

pub use attr::{
    Attr, Comparable, Compressed, Encrypted, IntoAttr, Managed, Numeric, Plain, Settable, Signed,
    SparseComposite, SparseKeys, TableKeyComposite, UniqueField,
};
pub use condition::{Condition, SizeOp};
pub use placeholders::{Placeholders, Rendered};
pub use update::{IndexChange, Update};
