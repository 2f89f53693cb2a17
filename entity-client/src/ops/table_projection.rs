//! What each secondary index projects, merged from the entities' models
//! (`#[index(.., projection = ...)]`): the one description `create_table`,
//! `sync_table`, `check_table` and the design export all read.

use crate::error::{ProjectionMismatch, ValidationError};
use aws_sdk_dynamodb::types::{Projection, ProjectionType};
use entity_core::{EntityModel, IndexModel, IndexProjection};
use std::collections::BTreeSet;
use std::fmt;

/// An index's projection as the table declares it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProjectionDesign {
    /// Whole items.
    #[default]
    All,
    /// The table's and the index's key attributes.
    KeysOnly,
    /// The keys and these non-key attributes: the fields `include(..)`
    /// names, with the entity's identity and version attributes and its
    /// TTL and soft-delete attributes.
    Include(BTreeSet<String>),
}

impl ProjectionDesign {
    /// What `model` needs `index` to project.
    pub(crate) fn of(model: &EntityModel, index: &IndexModel) -> Self {
        match index.projection {
            IndexProjection::All => ProjectionDesign::All,
            IndexProjection::KeysOnly => ProjectionDesign::KeysOnly,
            IndexProjection::Include(attributes) => {
                // What a view's read needs besides the fields: the identity
                // and version, and the lifecycle attributes that hide
                // expired and soft-deleted items.
                let lifecycle = &model.lifecycle;
                let identity = [model.identity_attribute, model.version_attribute]
                    .into_iter()
                    .chain(lifecycle.ttl.map(|t| t.attribute))
                    .chain(lifecycle.soft_delete.map(|s| s.attribute))
                    .collect::<Vec<_>>();
                let names = attributes.iter().chain(&identity);
                ProjectionDesign::Include(names.map(|a| (*a).to_owned()).collect())
            }
        }
    }

    /// The projection a live index declares (`ALL` when it says nothing).
    pub(crate) fn live(projection: Option<&Projection>) -> Self {
        let kind = projection.and_then(|p| p.projection_type());
        match kind {
            Some(ProjectionType::KeysOnly) => ProjectionDesign::KeysOnly,
            Some(ProjectionType::Include) => ProjectionDesign::Include(
                (projection
                    .map(|p| p.non_key_attributes())
                    .unwrap_or_default())
                .iter()
                .cloned()
                .collect(),
            ),
            _ => ProjectionDesign::All,
        }
    }

    /// The SDK's projection, for CreateTable and UpdateTable.
    pub(crate) fn to_sdk(&self) -> Projection {
        match self {
            ProjectionDesign::All => Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
            ProjectionDesign::KeysOnly => Projection::builder()
                .projection_type(ProjectionType::KeysOnly)
                .build(),
            ProjectionDesign::Include(names) => Projection::builder()
                .projection_type(ProjectionType::Include)
                .set_non_key_attributes(Some(names.iter().cloned().collect()))
                .build(),
        }
    }

    /// Whether an index projecting `self` holds everything `needed` reads:
    /// more is no drift, less is.
    pub(crate) fn covers(&self, needed: &ProjectionDesign) -> bool {
        match (self, needed) {
            (ProjectionDesign::All, _) => true,
            (_, ProjectionDesign::All) => false,
            (_, ProjectionDesign::KeysOnly) => true,
            (ProjectionDesign::KeysOnly, ProjectionDesign::Include(_)) => false,
            (ProjectionDesign::Include(have), ProjectionDesign::Include(need)) => {
                need.is_subset(have)
            }
        }
    }

    /// The projection type DynamoDB names it by.
    pub fn type_name(&self) -> &'static str {
        match self {
            ProjectionDesign::All => "ALL",
            ProjectionDesign::KeysOnly => "KEYS_ONLY",
            ProjectionDesign::Include(_) => "INCLUDE",
        }
    }
}

impl fmt::Display for ProjectionDesign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProjectionDesign::Include(names) => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                write!(f, "INCLUDE ({})", names.join(", "))
            }
            other => f.write_str(other.type_name()),
        }
    }
}

/// Records what `model` needs index `name` to project into `projections`,
/// refusing a projection another entity sharing the index declares
/// otherwise: one physical index has one projection.
pub(crate) fn merge(
    projections: &mut std::collections::BTreeMap<String, (ProjectionDesign, &'static str)>,
    model: &EntityModel,
    name: &str,
    index: &IndexModel,
) -> Result<(), ValidationError> {
    let needed = ProjectionDesign::of(model, index);
    match projections.get(name) {
        Some((existing, first)) if *existing != needed => Err(
            ValidationError::IndexProjectionMismatch(Box::new(ProjectionMismatch {
                index: name.to_owned(),
                first: first.to_string(),
                first_projection: existing.to_string(),
                second: model.name.to_owned(),
                second_projection: needed.to_string(),
            })),
        ),
        Some(_) => Ok(()),
        None => {
            projections.insert(name.to_owned(), (needed, model.name));
            Ok(())
        }
    }
}
