//! `create_table`: the table, GSIs and LSIs a set of entities needs, derived
//! from their definitions, then waiting until everything is active, then
//! enabling TTL on the attribute the entities' `#[entity(ttl)]` fields use.

use super::operation::{operation, Operation};
use super::table_projection::{self, ProjectionDesign};
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType,
    LocalSecondaryIndex, ScalarAttributeType, StreamSpecification, StreamViewType, TableStatus,
    TimeToLiveSpecification, TimeToLiveStatus,
};
use entity_core::{EntityModel, IndexKind, IndexModel, Overlap, ScalarType};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::time::{Duration, Instant};

/// The key schema of a table and its indexes, merged from entity models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDesign {
    /// Partition and sort key attributes of the table.
    pub key: (String, Option<String>),
    /// Global indexes by name: partition and sort key attributes.
    pub global: BTreeMap<String, (String, Option<String>)>,
    /// Local indexes by name: their sort key attribute.
    pub local: BTreeMap<String, String>,
    /// Key attributes stored as numbers (`N`); the others are strings.
    pub numbers: BTreeSet<String>,
    /// Multi-attribute global indexes by name: their partition attributes,
    /// then their sort attributes, in key order.
    pub multi_attribute: BTreeMap<String, (Vec<String>, Vec<String>)>,
    /// Key attributes stored as binary (`B`).
    pub binaries: BTreeSet<String>,
    /// The attribute DynamoDB's TTL reads, when an entity declares a
    /// `#[entity(ttl)]` field (a table has one TTL attribute).
    pub ttl: Option<String>,
    /// What each secondary index projects, with the entity that declared
    /// it first; an index left out projects whole items.
    pub projections: BTreeMap<String, (ProjectionDesign, &'static str)>,
}

impl TableDesign {
    /// Merges the keys of `models`, failing where two entities disagree on a
    /// table or index key.
    pub fn from_models(models: &[&EntityModel]) -> Result<Self, ValidationError> {
        let first = models
            .first()
            .ok_or_else(|| ValidationError::TableDesign("no entities given".into()))?;
        refuse_overlaps(models)?;
        let key = (
            first.primary.pk.attribute.to_owned(),
            first.primary.sk.map(|k| k.attribute.to_owned()),
        );
        let mut design = TableDesign {
            key,
            global: BTreeMap::new(),
            local: BTreeMap::new(),
            numbers: BTreeSet::new(),
            multi_attribute: BTreeMap::new(),
            binaries: BTreeSet::new(),
            ttl: None,
            projections: BTreeMap::new(),
        };
        for model in models {
            let theirs = (
                model.primary.pk.attribute.to_owned(),
                model.primary.sk.map(|k| k.attribute.to_owned()),
            );
            if theirs != design.key {
                let shown = |(pk, sk): &(String, Option<String>)| match sk {
                    Some(sk) => format!("partition key `{pk}` and sort key `{sk}`"),
                    None => format!("partition key `{pk}` and no sort key"),
                };
                let fix = match theirs.1.is_some() == design.key.1.is_some() {
                    true => "name the key attributes alike (`#[pk(.., attr = \"..\")]`)",
                    false => "give each a `#[sk(...)]`, or none",
                };
                return Err(ValidationError::TableDesign(format!(
                    "{} keys the table on {}, {} on {}: entities of one table key it alike ({fix})",
                    model.name,
                    shown(&theirs),
                    first.name,
                    shown(&design.key)
                )));
            }
            design.add_key_types(model);
            design.add_ttl(model)?;
            for index in model.indexes {
                let name = index.index_name.unwrap_or(index.name).to_owned();
                table_projection::merge(&mut design.projections, model, &name, index)?;
                match index.kind {
                    _ if !index.multi_attribute.is_empty() => {
                        design.add_multi_attribute(model.name, &name, index)?;
                    }
                    IndexKind::Local => {
                        let sk = index.sk.map(|k| k.attribute.to_owned()).unwrap_or_default();
                        if let Some(existing) = design.local.insert(name.clone(), sk.clone()) {
                            if existing != sk {
                                return Err(ValidationError::TableDesign(format!(
                                    "local index {name} has sort key {existing} and {sk} ({})",
                                    model.name
                                )));
                            }
                        }
                    }
                    _ => {
                        let keys = (
                            index.pk.attribute.to_owned(),
                            index.sk.map(|k| k.attribute.to_owned()),
                        );
                        if let Some(existing) = design.global.insert(name.clone(), keys.clone()) {
                            if existing != keys {
                                return Err(ValidationError::TableDesign(format!(
                                    "global index {name} is keyed on {existing:?} and on {keys:?} ({})",
                                    model.name
                                )));
                            }
                        }
                    }
                }
            }
        }
        Ok(design)
    }

    /// Records `model`'s number-typed key attributes.
    fn add_key_types(&mut self, model: &EntityModel) {
        for attribute in model.key_attributes() {
            if model.is_number_key(attribute) {
                self.numbers.insert(attribute.to_owned());
            }
            if model.key_scalar(attribute) == Some(ScalarType::B) {
                self.binaries.insert(attribute.to_owned());
            }
        }
    }

    /// Records `model`'s TTL attribute, failing where another entity's is
    /// another: DynamoDB reads TTL from one attribute per table.
    fn add_ttl(&mut self, model: &EntityModel) -> Result<(), ValidationError> {
        let Some(ttl) = model.lifecycle.ttl else {
            return Ok(());
        };
        match &self.ttl {
            Some(existing) if existing != ttl.attribute => {
                Err(ValidationError::TableDesign(format!(
                    "{} keeps its time to live in attribute {}, another entity in {existing}; a table has one TTL attribute",
                    model.name, ttl.attribute
                )))
            }
            Some(_) => Ok(()),
            None => {
                self.ttl = Some(ttl.attribute.to_owned());
                Ok(())
            }
        }
    }

    /// Records a multi-attribute GSI, failing where another entity keys it
    /// differently.
    fn add_multi_attribute(
        &mut self,
        entity: &str,
        name: &str,
        index: &IndexModel,
    ) -> Result<(), ValidationError> {
        let of = |sort: bool| -> Vec<String> {
            (index.multi_attribute.iter())
                .filter(|key| key.sort == sort)
                .map(|key| key.attribute.to_owned())
                .collect()
        };
        let keys = (of(false), of(true));
        if self.global.contains_key(name) {
            return Err(ValidationError::TableDesign(format!(
                "global index {name} has a multi-attribute key and a composed one ({entity})"
            )));
        }
        if let Some(existing) = self.multi_attribute.insert(name.to_owned(), keys.clone()) {
            if existing != keys {
                return Err(ValidationError::TableDesign(format!(
                    "global index {name} is keyed on {existing:?} and on {keys:?} ({entity})"
                )));
            }
        }
        Ok(())
    }

    /// What index `name` projects (`ALL` unless an entity says otherwise).
    pub fn projection(&self, name: &str) -> ProjectionDesign {
        self.projections
            .get(name)
            .map(|(p, _)| p.clone())
            .unwrap_or_default()
    }

    /// The DynamoDB type of a key attribute.
    pub(crate) fn attribute_type(&self, name: &str) -> ScalarAttributeType {
        if self.numbers.contains(name) {
            ScalarAttributeType::N
        } else if self.binaries.contains(name) {
            ScalarAttributeType::B
        } else {
            ScalarAttributeType::S
        }
    }

    fn attributes(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let mut add = |name: &String| {
            if !names.contains(name) {
                names.push(name.clone());
            }
        };
        add(&self.key.0);
        self.key.1.iter().for_each(&mut add);
        for (pk, sk) in self.global.values() {
            add(pk);
            sk.iter().for_each(&mut add);
        }
        for (pk, sk) in self.multi_attribute.values() {
            pk.iter().chain(sk).for_each(&mut add);
        }
        self.local.values().for_each(add);
        names
    }
}

/// Refuses two entities that would mix their items in one table
/// ([`EntityModel::overlap`]), naming both.
fn refuse_overlaps(models: &[&EntityModel]) -> Result<(), ValidationError> {
    for (i, first) in models.iter().enumerate() {
        for second in &models[i + 1..] {
            if let Some(overlap) = first.overlap(second) {
                let describe = |model: &EntityModel| match overlap {
                    Overlap::SameName => {
                        let fields: Vec<&str> = model.fields.iter().map(|f| f.field).collect();
                        format!("{} {{ {} }}", model.name, fields.join(", "))
                    }
                    _ => {
                        let sk = model.primary.sk.map(|sk| format!(", sk {:?}", sk.template));
                        let pk = model.primary.pk.template;
                        format!("{} (pk {pk:?}{})", model.name, sk.unwrap_or_default())
                    }
                };
                return Err(ValidationError::EntitiesOverlap {
                    first: describe(first),
                    second: describe(second),
                    overlap,
                });
            }
        }
    }
    Ok(())
}

pub(crate) fn schema(pk: &str, sk: Option<&String>) -> Result<Vec<KeySchemaElement>> {
    let mut out = vec![KeySchemaElement::builder()
        .attribute_name(pk)
        .key_type(KeyType::Hash)
        .build()
        .map_err(build_error)?];
    if let Some(sk) = sk {
        out.push(
            KeySchemaElement::builder()
                .attribute_name(sk)
                .key_type(KeyType::Range)
                .build()
                .map_err(build_error)?,
        );
    }
    Ok(out)
}

/// Several `HASH` attributes, then several `RANGE` ones.
fn multi_attribute_schema(pk: &[String], sk: &[String]) -> Result<Vec<KeySchemaElement>> {
    let hash = pk.iter().map(|name| (name, KeyType::Hash));
    let range = sk.iter().map(|name| (name, KeyType::Range));
    hash.chain(range)
        .map(|(name, key_type)| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(key_type)
                .build()
                .map_err(build_error)
        })
        .collect()
}

pub(crate) fn build_error(e: impl std::fmt::Display) -> Error {
    ValidationError::TableDesign(e.to_string()).into()
}

/// A CreateTable for a set of entities (on-demand billing, each index
/// projecting what its `projection = ...` declares, whole items by default). `.await` creates it and waits until the
/// table and its indexes are active.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// client.create_table(&[Doc::MODEL]).if_not_exists().await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct CreateTable {
    client: Client,
    design: Result<TableDesign, ValidationError>,
    if_not_exists: bool,
    timeout: Duration,
    stream: Option<StreamViewType>,
}

impl Client {
    /// Creates the table these entities need.
    pub fn create_table(&self, models: &[&EntityModel]) -> CreateTable {
        CreateTable {
            client: self.clone(),
            design: TableDesign::from_models(models),
            if_not_exists: false,
            timeout: Duration::from_secs(120),
            stream: None,
        }
    }
}

impl CreateTable {
    /// Succeeds if the table already exists.
    pub fn if_not_exists(mut self) -> Self {
        self.if_not_exists = true;
        self
    }

    /// Enables the table's DynamoDB stream with this view type;
    /// [`streams`](crate::streams) decodes its records, and needs
    /// `StreamViewType::NewAndOldImages` to decode every event. (A table
    /// that already exists, with `if_not_exists`, keeps its stream setting.)
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity};
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// use entity_client::StreamViewType;
    /// client.create_table(&[Doc::MODEL]).stream(StreamViewType::NewAndOldImages).await?;
    /// # Ok(()) }
    /// ```
    pub fn stream(mut self, view: StreamViewType) -> Self {
        self.stream = Some(view);
        self
    }

    /// How long to wait for the table to become active.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn send(self) -> Result<()> {
        let design = self.design?;
        if !design.multi_attribute.is_empty() {
            self.client.require(
                |c| c.multi_attribute_keys,
                "multi-attribute GSI keys",
                "an index declared `multi_attribute` keys on several attributes",
            )?;
        }
        let table = self.client.checked_table()?;
        let mut request = self
            .client
            .inner
            .sdk
            .create_table()
            .table_name(table)
            .billing_mode(BillingMode::PayPerRequest)
            .set_key_schema(Some(schema(&design.key.0, design.key.1.as_ref())?));
        if let Some(view) = self.stream {
            request = request.stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(view)
                    .build()
                    .map_err(build_error)?,
            );
        }
        for name in design.attributes() {
            request = request.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_type(design.attribute_type(&name))
                    .attribute_name(name)
                    .build()
                    .map_err(build_error)?,
            );
        }
        for (name, (pk, sk)) in &design.global {
            request = request.global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(name)
                    .set_key_schema(Some(schema(pk, sk.as_ref())?))
                    .projection(design.projection(name).to_sdk())
                    .build()
                    .map_err(build_error)?,
            );
        }
        for (name, (pk, sk)) in &design.multi_attribute {
            request = request.global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(name)
                    .set_key_schema(Some(multi_attribute_schema(pk, sk)?))
                    .projection(design.projection(name).to_sdk())
                    .build()
                    .map_err(build_error)?,
            );
        }
        for (name, sk) in &design.local {
            request = request.local_secondary_indexes(
                LocalSecondaryIndex::builder()
                    .index_name(name)
                    .set_key_schema(Some(schema(&design.key.0, Some(sk))?))
                    .projection(design.projection(name).to_sdk())
                    .build()
                    .map_err(build_error)?,
            );
        }
        match request.send().await {
            Ok(_) => {}
            Err(e) => {
                let error = aws_sdk_dynamodb::Error::from(e);
                let exists = matches!(error, aws_sdk_dynamodb::Error::ResourceInUseException(_));
                if !(exists && self.if_not_exists) {
                    return Err(from_sdk("CreateTable", "table", error));
                }
            }
        }
        wait_until_active(&self.client, self.timeout).await?;
        match &design.ttl {
            Some(attribute) => enable_ttl(&self.client, attribute).await,
            None => Ok(()),
        }
    }
}

/// The attribute TTL is enabled (or being enabled) on, if any.
pub(crate) async fn live_ttl(client: &Client) -> Result<Option<String>> {
    let current = client
        .inner
        .sdk
        .describe_time_to_live()
        .table_name(client.checked_table()?)
        .send()
        .await
        .map_err(|e| from_sdk("DescribeTimeToLive", "table", e))?;
    Ok(current
        .time_to_live_description
        .filter(|d| {
            matches!(
                d.time_to_live_status(),
                Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
            )
        })
        .and_then(|d| d.attribute_name))
}

/// Enables TTL on `attribute` (once the table is active, as DynamoDB
/// requires), unless it is already enabled or enabling there: an existing
/// table (`if_not_exists`) keeps its setting. TTL on another attribute is
/// a design the entities cannot work with.
pub(crate) async fn enable_ttl(client: &Client, attribute: &str) -> Result<()> {
    let table = client.checked_table()?;
    match live_ttl(client).await? {
        Some(name) if name == attribute => return Ok(()),
        Some(name) => {
            return Err(ValidationError::TableDesign(format!(
                "table {table} has TTL on attribute {name}, and the entities keep their time to live in {attribute}"
            ))
            .into())
        }
        None => {}
    }
    let specification = TimeToLiveSpecification::builder()
        .enabled(true)
        .attribute_name(attribute)
        .build()
        .map_err(build_error)?;
    client
        .inner
        .sdk
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(specification)
        .send()
        .await
        .map_err(|e| from_sdk("UpdateTimeToLive", "table", e))?;
    Ok(())
}

pub(crate) async fn wait_until_active(client: &Client, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let output = client
            .inner
            .sdk
            .describe_table()
            .table_name(client.checked_table()?)
            .send()
            .await
            .map_err(|e| from_sdk("DescribeTable", "table", e))?;
        let active = output.table.is_some_and(|table| {
            table.table_status == Some(TableStatus::Active)
                && table
                    .global_secondary_indexes()
                    .iter()
                    .all(|i| i.index_status == Some(IndexStatus::Active))
        });
        if active {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(ValidationError::TableDesign(format!(
                "table {} was not active after {timeout:?}",
                client.inner.table
            ))
            .into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

impl Operation for CreateTable {
    type Output = ();
    const READS_FIRST: bool = true;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "create_table",
            entity: "-",
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<()>> + Send + 'static {
        self.send()
    }
}

operation!([] CreateTable => ());
