//! The NoSQL Workbench data model, import format 3.0: `ModelName`,
//! `ModelMetadata`, and one `DataModel` table with its key, non-key
//! attributes, one facet per entity (sample items in DynamoDB JSON) and its
//! global secondary indexes.

use super::{Design, EntityDesign};
use crate::error::{Result, ValidationError};
use crate::ops::table_projection::ProjectionDesign;
use crate::TableDesign;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde_json::{json, Map, Value};

impl Design {
    /// The NoSQL Workbench data model (import format 3.0), pretty-printed
    /// JSON: the table's key, one facet per entity with its sample items
    /// in DynamoDB JSON, every global secondary index. Workbench models have
    /// no local secondary indexes, and no multi-attribute keys: their
    /// attributes are listed as non-key attributes.
    pub fn workbench(&self) -> Result<String> {
        let table = self.checked()?;
        let model = model(self, &table);
        serde_json::to_string_pretty(&model)
            .map_err(|e| ValidationError::TableDesign(format!("design JSON: {e}")).into())
    }
}

/// The whole model.
pub(super) fn model(design: &Design, table: &TableDesign) -> Value {
    let created = design.created();
    json!({
        "ModelName": design.table,
        "ModelMetadata": {
            "Author": design.author,
            "DateCreated": created,
            "DateLastModified": created,
            "Description": design.description,
            "AWSService": "Amazon DynamoDB",
            "Version": "3.0",
        },
        "DataModel": [data_model(design, table)],
    })
}

fn data_model(design: &Design, table: &TableDesign) -> Value {
    let mut keys = Map::new();
    keys.insert("PartitionKey".into(), attribute(table, &table.key.0, None));
    if let Some(sk) = &table.key.1 {
        keys.insert("SortKey".into(), attribute(table, sk, None));
    }
    let facets: Vec<Value> = design.entities.iter().map(|e| facet(e, table)).collect();
    let indexes: Vec<Value> = (table.global.iter())
        .map(|(name, (pk, sk))| {
            let mut keys = Map::new();
            keys.insert("PartitionKey".into(), attribute(table, pk, None));
            if let Some(sk) = sk {
                keys.insert("SortKey".into(), attribute(table, sk, None));
            }
            json!({
                "IndexName": name,
                "KeyAttributes": keys,
                "Projection": projection(table, name),
            })
        })
        .collect();
    json!({
        "TableName": design.table,
        "KeyAttributes": keys,
        "NonKeyAttributes": non_key_attributes(design, table),
        "TableFacets": facets,
        "GlobalSecondaryIndexes": indexes,
        "DataAccess": { "MySql": {} },
        "BillingMode": "PAY_PER_REQUEST",
    })
}

/// `{AttributeName, AttributeType}`: a key attribute's type from the
/// table design, another's from a sample value (`S` without one).
/// An index's projection as NoSQL Workbench writes it.
fn projection(table: &TableDesign, index: &str) -> Value {
    match table.projection(index) {
        ProjectionDesign::Include(names) => json!({
            "ProjectionType": "INCLUDE",
            "NonKeyAttributes": names,
        }),
        other => json!({ "ProjectionType": other.type_name() }),
    }
}

fn attribute(table: &TableDesign, name: &str, sample: Option<&AttributeValue>) -> Value {
    let key_type = if table.numbers.contains(name) {
        Some("N")
    } else if table.binaries.contains(name) {
        Some("B")
    } else if table.key.0 == name
        || table.key.1.as_deref() == Some(name)
        || table
            .global
            .values()
            .any(|(pk, sk)| pk == name || sk.as_deref() == Some(name))
        || table.local.values().any(|sk| sk == name)
    {
        Some("S")
    } else {
        None
    };
    let kind = key_type.unwrap_or_else(|| sample.map(type_tag).unwrap_or("S"));
    json!({ "AttributeName": name, "AttributeType": kind })
}

/// Every attribute but the table's key, each once, typed.
fn non_key_attributes(design: &Design, table: &TableDesign) -> Vec<Value> {
    let mut names: Vec<&str> = Vec::new();
    for entity in &design.entities {
        for name in entity_attributes(entity, table) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let sample = (design.entities.iter())
                .flat_map(|e| &e.samples)
                .find_map(|item| item.get(name));
            attribute(table, name, sample)
        })
        .collect()
}

/// The attributes an entity writes besides the table's key: index keys,
/// identity and version, fields, and whatever else its samples hold.
fn entity_attributes<'e>(entity: &'e EntityDesign, table: &TableDesign) -> Vec<&'e str> {
    let model = entity.model;
    let mut names: Vec<&str> = Vec::new();
    let declared = (model.key_attributes().into_iter())
        .chain([model.identity_attribute, model.version_attribute])
        .chain(model.fields.iter().map(|f| f.attribute));
    let mut sampled: Vec<&str> = (entity.samples.iter())
        .flat_map(|item| item.keys().map(String::as_str))
        .collect();
    sampled.sort_unstable();
    for name in declared.chain(sampled) {
        let table_key = name == table.key.0 || table.key.1.as_deref() == Some(name);
        if !table_key && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

fn facet(entity: &EntityDesign, table: &TableDesign) -> Value {
    let model = entity.model;
    let mut alias = Map::new();
    alias.insert(
        "PartitionKeyAlias".into(),
        super::template(&model.primary.pk).into(),
    );
    if let Some(sk) = &model.primary.sk {
        alias.insert("SortKeyAlias".into(), super::template(sk).into());
    }
    let data: Vec<Value> = entity.samples.iter().map(item_json).collect();
    json!({
        "FacetName": super::entity_label(model),
        "KeyAttributeAlias": alias,
        "TableData": data,
        "NonKeyAttributes": entity_attributes(entity, table),
        "DataAccess": { "MySql": {} },
    })
}

/// An item in DynamoDB JSON, attributes in name order.
fn item_json(item: &entity_core::Item) -> Value {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort_unstable();
    let map: Map<String, Value> = names
        .into_iter()
        .map(|name| (name.clone(), dynamodb_json(&item[name])))
        .collect();
    Value::Object(map)
}

/// A value in DynamoDB JSON: `{"S": "..."}`, `{"N": "3"}`, `{"M": {...}}`.
pub(super) fn dynamodb_json(value: &AttributeValue) -> Value {
    let b64 = |blob: &aws_sdk_dynamodb::primitives::Blob| {
        Value::from(base64::engine::general_purpose::STANDARD.encode(blob.as_ref()))
    };
    match value {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::Ss(set) => json!({ "SS": set }),
        AttributeValue::Ns(set) => json!({ "NS": set }),
        AttributeValue::Bs(set) => json!({ "BS": set.iter().map(b64).collect::<Vec<_>>() }),
        AttributeValue::L(list) => {
            json!({ "L": list.iter().map(dynamodb_json).collect::<Vec<_>>() })
        }
        AttributeValue::M(map) => {
            let map: Map<String, Value> = (map.iter())
                .map(|(k, v)| (k.clone(), dynamodb_json(v)))
                .collect();
            json!({ "M": map })
        }
        // A value type newer than this code: kept as a placeholder so the
        // item keeps its attribute.
        _ => json!({ "NULL": true }),
    }
}

/// The DynamoDB type of a value, as Workbench names it.
fn type_tag(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        _ => "NULL",
    }
}
