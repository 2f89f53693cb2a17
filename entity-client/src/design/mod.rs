//! Table-design export: the single-table design of a set of entities as a
//! NoSQL Workbench data model (import format 3.0), an access-pattern table
//! in Markdown, and a self-contained HTML page.
//!
//! It lives in the client crate, beside `create_table`, because it merges
//! the entities' keys with the same [`TableDesign::from_models`]: the
//! exported design is the table `create_table` builds, refused for the same
//! reasons. It needs nothing the client does not already depend on
//! (`serde_json`, `base64`), so it is not behind a feature.
//!
//! Sample items are the caller's entities run through `to_item`, so every
//! key in the export is a real composed key that the entity's parsers read
//! back. An entity given without samples still shows its key templates.

mod date;
mod html;
mod markdown;
mod workbench;

use crate::error::{Error, Result, ValidationError};
use crate::TableDesign;
use entity_core::collection::{CollectionMember, CollectionSpec};
use entity_core::{EncodeError, EntityModel, IndexModel, Item, KeyModel};
use std::time::SystemTime;

/// The design of one table: its entities and sample items, rendered as a
/// NoSQL Workbench model ([`workbench`](Design::workbench)), an
/// access-pattern table ([`markdown`](Design::markdown)) or an HTML page
/// ([`html`](Design::html)).
///
/// ```
/// use entity_client::{design::Design, Entity};
///
/// #[derive(Entity)]
/// #[entity(schema = "myapp")]
/// #[pk(task_id)]
/// #[sk()]
/// #[index(by_project(gsi = "gsi1", pk(project_id), sk(priority)))]
/// struct Task { task_id: String, project_id: String, priority: u8 }
///
/// let sample = Task { task_id: "t-001".into(), project_id: "proj-alpha".into(), priority: 3 };
/// let design = Design::new("app").entity::<Task>(&[sample]);
///
/// let model: serde_json::Value = serde_json::from_str(&design.workbench()?)?;
/// let table = &model["DataModel"][0];
/// assert_eq!(table["TableName"], "app");
/// assert_eq!(table["GlobalSecondaryIndexes"][0]["IndexName"], "gsi1");
/// let item = &table["TableFacets"][0]["TableData"][0];
/// assert_eq!(item["pk"]["S"], "$myapp#v1#task#task_id_t-001");
/// assert_eq!(Task::parse_pk(item["pk"]["S"].as_str().unwrap())?.0, "t-001");
///
/// assert!(design.markdown()?.contains("| Task | `Task::by_project(..)` | gsi1 |"));
/// assert!(design.html()?.starts_with("<!DOCTYPE html>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Design {
    table: String,
    author: String,
    description: String,
    date: Option<String>,
    entities: Vec<EntityDesign>,
    error: Option<EncodeError>,
}

/// One entity of a design.
#[derive(Debug, Clone)]
struct EntityDesign {
    model: &'static EntityModel,
    collections: &'static [CollectionSpec],
    samples: Vec<Item>,
}

impl Design {
    /// The design of table `table` (also the Workbench model's name).
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            author: String::new(),
            description: String::new(),
            date: None,
            entities: Vec::new(),
            error: None,
        }
    }

    /// Adds entity `E`, with sample values whose items (as `to_item` writes
    /// them) fill the Workbench facet and the page's grids. A sample that
    /// cannot be stored makes every rendering fail with its
    /// [`Error::Encode`].
    pub fn entity<E: CollectionMember>(mut self, samples: &[E]) -> Self {
        let mut items = Vec::with_capacity(samples.len());
        for sample in samples {
            match sample.to_item() {
                Ok(item) => items.push(item),
                Err(e) => {
                    self.error.get_or_insert(e);
                }
            }
        }
        self.entities.push(EntityDesign {
            model: E::MODEL,
            collections: E::COLLECTIONS,
            samples: items,
        });
        self
    }

    /// The model's author (Workbench `ModelMetadata.Author`).
    pub fn author(mut self, author: impl Into<String>) -> Self {
        self.author = author.into();
        self
    }

    /// The model's description (Workbench `ModelMetadata.Description`).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The model's creation date as Workbench writes it (`Jan 15, 2024,
    /// 10:30 AM`); default: now, in UTC.
    pub fn date(mut self, date: impl Into<String>) -> Self {
        self.date = Some(date.into());
        self
    }

    /// The merged table design, or why there is none.
    fn checked(&self) -> Result<TableDesign> {
        if let Some(e) = &self.error {
            return Err(Error::Encode(e.clone()));
        }
        for entity in &self.entities {
            if let Some(declared) = entity.model.table {
                if declared != self.table {
                    return Err(ValidationError::TableDesign(format!(
                        "{} is declared in table {declared}, the design is of {}",
                        entity.model.name, self.table
                    ))
                    .into());
                }
            }
        }
        let models: Vec<&EntityModel> = self.entities.iter().map(|e| e.model).collect();
        Ok(TableDesign::from_models(&models)?)
    }

    fn created(&self) -> String {
        self.date
            .clone()
            .unwrap_or_else(|| date::workbench_date(SystemTime::now()))
    }
}

/// The indexes of a table, in page order: the table, global indexes by
/// name (composed, then multi-attribute), local indexes by name.
fn physical_indexes(table: &TableDesign) -> Vec<PhysicalIndex> {
    let mut out = vec![PhysicalIndex {
        name: None,
        kind: "table key",
        pk: vec![table.key.0.clone()],
        sk: table.key.1.iter().cloned().collect(),
    }];
    for (name, (pk, sk)) in &table.global {
        out.push(PhysicalIndex {
            name: Some(name.clone()),
            kind: "GSI",
            pk: vec![pk.clone()],
            sk: sk.iter().cloned().collect(),
        });
    }
    for (name, (pk, sk)) in &table.multi_attribute {
        out.push(PhysicalIndex {
            name: Some(name.clone()),
            kind: "GSI, multi-attribute",
            pk: pk.clone(),
            sk: sk.clone(),
        });
    }
    for (name, sk) in &table.local {
        out.push(PhysicalIndex {
            name: Some(name.clone()),
            kind: "LSI",
            pk: vec![table.key.0.clone()],
            sk: vec![sk.clone()],
        });
    }
    out
}

/// One physical index: its key attributes (several for a multi-attribute
/// key).
struct PhysicalIndex {
    /// `None` for the table.
    name: Option<String>,
    kind: &'static str,
    pk: Vec<String>,
    sk: Vec<String>,
}

impl PhysicalIndex {
    /// The name the page and the summary use: `table`, `gsi1`.
    fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("table")
    }

    /// Whether an item is in this index: it holds every key attribute
    /// (sparse indexes leave items out).
    fn holds(&self, item: &Item) -> bool {
        self.pk.iter().chain(&self.sk).all(|a| item.contains_key(a))
    }

    /// The logical indexes of `model` on this physical index.
    fn of<'m>(&self, model: &'m EntityModel) -> Vec<&'m IndexModel> {
        match &self.name {
            None => vec![&model.primary],
            Some(name) => (model.indexes.iter())
                .filter(|index| index.index_name == Some(name.as_str()))
                .collect(),
        }
    }
}

/// The collections `entity` joins on physical index `name` (`None`: the
/// table's keys).
fn collections_on<'e>(entity: &'e EntityDesign, name: Option<&str>) -> Vec<&'e CollectionSpec> {
    (entity.collections.iter())
        .filter(|spec| spec.index_name == name)
        .collect()
}

/// A collection path as written (`contributions/assignments`).
fn collection_name(path: &[&str]) -> String {
    path.join("/")
}

/// A key's template; a sharded partition key's ends with its shard
/// suffix and says how many shards there are
/// (`STATUS#{status}#SHARD#{shard} (10 shards)`).
fn template(key: &KeyModel) -> String {
    match key.shards {
        Some(spec) => format!(
            "{}{}{{shard}} ({} shards)",
            key.template, spec.label, spec.count
        ),
        None => key.template.to_owned(),
    }
}

/// An index's partition and sort key templates; a multi-attribute key
/// lists its attributes.
fn templates(index: &IndexModel) -> (String, String) {
    if index.multi_attribute.is_empty() {
        let sk = index.sk.as_ref().map(template).unwrap_or_default();
        return (template(&index.pk), sk);
    }
    let of = |sort: bool| -> String {
        let attributes: Vec<&str> = (index.multi_attribute.iter())
            .filter(|key| key.sort == sort)
            .map(|key| key.attribute)
            .collect();
        attributes.join(" + ")
    };
    (of(false), of(true))
}

/// An entity's name as the exports show it, with its tenant field.
fn entity_label(model: &EntityModel) -> String {
    match model.tenant {
        Some(tenant) => format!("{} (tenant {})", model.name, tenant.field),
        None => model.name.to_owned(),
    }
}
