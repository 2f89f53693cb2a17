//! Table drift: the live table against the design its entities need
//! (`check_table`), and adding what is missing (`sync_table`).

use super::table::{build_error, enable_ttl, live_ttl, schema, wait_until_active, TableDesign};
use super::table_projection::ProjectionDesign;
use crate::error::{from_sdk, Result, ValidationError};
use crate::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate,
    KeySchemaElement, KeyType, TableDescription,
};
use entity_core::EntityModel;
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// One difference between the live table and what its entities need.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drift {
    /// There is no table of that name.
    MissingTable,
    /// The table's key (`pk`, `sk`) is another: only a new table fixes it.
    TableKey {
        /// What the entities need.
        expected: (String, Option<String>),
        /// What the table has.
        found: (String, Option<String>),
    },
    /// A key attribute is stored as another type (`S`, `N`, `B`).
    AttributeType {
        /// The attribute.
        attribute: String,
        /// What the entities write.
        expected: String,
        /// What the table declares.
        found: String,
    },
    /// An index the entities query is missing. A global one can be added
    /// (`sync_table`); a local one only with a new table.
    MissingIndex {
        /// The index.
        name: String,
        /// Whether it is a local secondary index.
        local: bool,
    },
    /// An index has other key attributes: only deleting and adding it
    /// again fixes it, which `sync_table` never does.
    IndexKey {
        /// The index.
        name: String,
        /// Its key attributes as the entities need them, in key order.
        expected: Vec<String>,
        /// As the table has them.
        found: Vec<String>,
    },
    /// An index projects less than the entities read from it (whole items,
    /// or what their `projection = ...` declares). Projecting more is no
    /// drift.
    Projection {
        /// The index.
        name: String,
        /// What the entities need: `ALL`, `KEYS_ONLY`, `INCLUDE (a, b)`.
        expected: String,
        /// What the index projects, alike.
        found: String,
    },
    /// An index no entity declares (left alone; it costs writes).
    ExtraIndex {
        /// The index.
        name: String,
    },
    /// TTL is off, or on another attribute, while the entities keep their
    /// time to live in `expected`.
    Ttl {
        /// The entities' TTL attribute.
        expected: String,
        /// The attribute TTL is enabled on, if any.
        found: Option<String>,
    },
}

impl Drift {
    /// Whether `sync_table` adds what is missing here.
    pub fn is_fixable(&self) -> bool {
        matches!(
            self,
            Drift::MissingIndex { local: false, .. } | Drift::Ttl { found: None, .. }
        )
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = |(pk, sk): &(String, Option<String>)| match sk {
            Some(sk) => format!("({pk}, {sk})"),
            None => format!("({pk})"),
        };
        match self {
            Drift::MissingTable => f.write_str("the table does not exist: create it with `create_table`"),
            Drift::TableKey { expected, found } => write!(
                f,
                "the table's key is {}, the entities need {}: only a new table (and a migration) fixes it",
                key(found),
                key(expected)
            ),
            Drift::AttributeType { attribute, expected, found } => write!(
                f,
                "key attribute {attribute} is declared {found}, the entities write {expected}"
            ),
            Drift::MissingIndex { name, local: false } => {
                write!(f, "global index {name} is missing (`sync_table` adds it)")
            }
            Drift::MissingIndex { name, local: true } => write!(
                f,
                "local index {name} is missing: DynamoDB adds local indexes only with a new table"
            ),
            Drift::IndexKey { name, expected, found } => write!(
                f,
                "index {name} keys on ({}), the entities need ({}): delete and add it again",
                found.join(", "),
                expected.join(", ")
            ),
            Drift::Projection { name, expected, found } => write!(
                f,
                "index {name} projects {found}, the entities read {expected} from it"
            ),
            Drift::ExtraIndex { name } => write!(f, "index {name} is declared by no entity"),
            Drift::Ttl { expected, found: None } => {
                write!(f, "TTL is off; the entities expire items by {expected} (`sync_table` turns it on)")
            }
            Drift::Ttl { expected, found: Some(found) } => write!(
                f,
                "TTL is on {found}, the entities expire items by {expected}: a table has one TTL attribute"
            ),
        }
    }
}

/// What the entities need of each index: its key attributes in key order,
/// and whether it is local.
fn needed_indexes(design: &TableDesign) -> BTreeMap<String, (Vec<String>, bool)> {
    let mut needed = BTreeMap::new();
    for (name, (pk, sk)) in &design.global {
        let keys = std::iter::once(pk.clone()).chain(sk.clone()).collect();
        needed.insert(name.clone(), (keys, false));
    }
    for (name, (pk, sk)) in &design.multi_attribute {
        needed.insert(
            name.clone(),
            (pk.iter().chain(sk).cloned().collect(), false),
        );
    }
    for (name, sk) in &design.local {
        needed.insert(name.clone(), (vec![design.key.0.clone(), sk.clone()], true));
    }
    needed
}

/// Key attribute names in key order (every HASH, then every RANGE).
fn key_names(schema: &[KeySchemaElement]) -> Vec<String> {
    let of = |kind: KeyType| {
        schema
            .iter()
            .filter(move |e| e.key_type == kind)
            .map(|e| e.attribute_name.clone())
    };
    of(KeyType::Hash).chain(of(KeyType::Range)).collect()
}

/// The differences between `table` (with TTL on `ttl`) and `design`.
fn compare(design: &TableDesign, table: &TableDescription, ttl: Option<String>) -> Vec<Drift> {
    let mut drifts = Vec::new();
    let live_key = key_names(table.key_schema());
    let expected_key: Vec<String> = std::iter::once(design.key.0.clone())
        .chain(design.key.1.clone())
        .collect();
    if live_key != expected_key {
        drifts.push(Drift::TableKey {
            expected: design.key.clone(),
            found: (
                live_key.first().cloned().unwrap_or_default(),
                live_key.get(1).cloned(),
            ),
        });
    }
    for definition in table.attribute_definitions() {
        let name = &definition.attribute_name;
        let found = definition.attribute_type.as_str().to_owned();
        let expected = design.attribute_type(name).as_str().to_owned();
        if found != expected {
            drifts.push(Drift::AttributeType {
                attribute: name.clone(),
                expected,
                found,
            });
        }
    }
    let mut live: BTreeMap<String, (Vec<String>, ProjectionDesign)> = BTreeMap::new();
    for index in table.global_secondary_indexes() {
        live.insert(
            index.index_name().unwrap_or_default().to_owned(),
            (
                key_names(index.key_schema()),
                ProjectionDesign::live(index.projection()),
            ),
        );
    }
    for index in table.local_secondary_indexes() {
        live.insert(
            index.index_name().unwrap_or_default().to_owned(),
            (
                key_names(index.key_schema()),
                ProjectionDesign::live(index.projection()),
            ),
        );
    }
    let needed = needed_indexes(design);
    for (name, (keys, local)) in &needed {
        match live.get(name) {
            None => drifts.push(Drift::MissingIndex {
                name: name.clone(),
                local: *local,
            }),
            Some((found, projection)) => {
                if found != keys {
                    drifts.push(Drift::IndexKey {
                        name: name.clone(),
                        expected: keys.clone(),
                        found: found.clone(),
                    });
                }
                let expected = design.projection(name);
                if !projection.covers(&expected) {
                    drifts.push(Drift::Projection {
                        name: name.clone(),
                        expected: expected.to_string(),
                        found: projection.to_string(),
                    });
                }
            }
        }
    }
    for name in live.keys().filter(|name| !needed.contains_key(*name)) {
        drifts.push(Drift::ExtraIndex { name: name.clone() });
    }
    if let Some(expected) = &design.ttl {
        if ttl.as_ref() != Some(expected) {
            drifts.push(Drift::Ttl {
                expected: expected.clone(),
                found: ttl,
            });
        }
    }
    drifts
}

impl Client {
    /// Every difference between the live table and the design `models`
    /// need (the one `create_table` makes): the table's key and key types,
    /// each index's keys and projection, indexes missing or declared by no
    /// entity, and TTL. Empty when the table fits.
    ///
    /// ```
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use entity_client::{Drift, Entity};
    ///
    /// #[derive(Entity)]
    /// #[entity(schema = "app")]
    /// #[pk(id)]
    /// struct Task { id: String, owner: String }
    ///
    /// /// The same entity, a release later: it queries by owner.
    /// #[derive(Entity)]
    /// #[entity(schema = "app", name = "Task")]
    /// #[pk(id)]
    /// #[index(by_owner(gsi = "gsi1", pk(owner), sk(id)))]
    /// struct TaskV2 { id: String, owner: String }
    ///
    /// let server = entity_client::EmbeddedDynamo::start().await?;
    /// let client = server.client("app");
    /// client.create_table(&[Task::MODEL]).await?;
    /// let drift = client.check_table(&[TaskV2::MODEL]).await?;
    /// assert_eq!(drift, [Drift::MissingIndex { name: "gsi1".into(), local: false }]);
    /// # Ok(()) }
    /// ```
    pub async fn check_table(&self, models: &[&EntityModel]) -> Result<Vec<Drift>> {
        let design = TableDesign::from_models(models)?;
        let table = self.checked_table()?;
        let described = self
            .inner
            .sdk
            .describe_table()
            .table_name(table)
            .send()
            .await;
        let description = match described {
            Ok(out) => out
                .table
                .unwrap_or_else(|| TableDescription::builder().build()),
            Err(e) => {
                let error = aws_sdk_dynamodb::Error::from(e);
                if matches!(error, aws_sdk_dynamodb::Error::ResourceNotFoundException(_)) {
                    return Ok(vec![Drift::MissingTable]);
                }
                return Err(from_sdk("DescribeTable", "table", error));
            }
        };
        let ttl = live_ttl(self).await?;
        Ok(compare(&design, &description, ttl))
    }

    /// Adds what the table lacks for `models` and can be added in place:
    /// missing global indexes (one UpdateTable each, waiting until each is
    /// active) and TTL. Nothing is ever deleted or rebuilt: the
    /// differences only a destructive change or a new table fixes (another
    /// table key, an index keyed otherwise, a missing local index, TTL on
    /// another attribute, an index no entity declares) are returned, left
    /// as they are. Waits up to `timeout` for each index.
    pub async fn sync_table(
        &self,
        models: &[&EntityModel],
        timeout: Duration,
    ) -> Result<Vec<Drift>> {
        let design = TableDesign::from_models(models)?;
        let drifts = self.check_table(models).await?;
        if drifts.contains(&Drift::MissingTable) {
            return Ok(drifts);
        }
        let table = self.checked_table()?;
        let mut left = Vec::new();
        for drift in drifts {
            match &drift {
                Drift::MissingIndex { name, local: false } => {
                    self.add_global_index(&design, table, name).await?;
                    wait_until_active(self, timeout).await?;
                }
                Drift::Ttl {
                    expected,
                    found: None,
                } => enable_ttl(self, expected).await?,
                _ => left.push(drift),
            }
        }
        Ok(left)
    }

    /// One UpdateTable that creates global index `name` of `design`.
    async fn add_global_index(&self, design: &TableDesign, table: &str, name: &str) -> Result<()> {
        let keys: Vec<KeySchemaElement> = match (design.global.get(name), design.multi_attribute.get(name)) {
            (Some((pk, sk)), _) => schema(pk, sk.as_ref())?,
            (None, Some(_)) => {
                return Err(ValidationError::TableDesign(format!(
                    "index {name} is multi-attribute: add it with the AWS console or SDK, or create the table anew"
                ))
                .into())
            }
            (None, None) => return Ok(()),
        };
        let mut update = self.inner.sdk.update_table().table_name(table);
        for key in &keys {
            update = update.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(&key.attribute_name)
                    .attribute_type(design.attribute_type(&key.attribute_name))
                    .build()
                    .map_err(build_error)?,
            );
        }
        let create = CreateGlobalSecondaryIndexAction::builder()
            .index_name(name)
            .set_key_schema(Some(keys))
            .projection(design.projection(name).to_sdk())
            .build()
            .map_err(build_error)?;
        update
            .global_secondary_index_updates(
                GlobalSecondaryIndexUpdate::builder().create(create).build(),
            )
            .send()
            .await
            .map_err(|e| from_sdk("UpdateTable", "table", e))?;
        Ok(())
    }
}
