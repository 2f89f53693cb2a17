//! `create_table` against a server: the table, GSIs and LSIs derived from
//! entity models, checked with the raw SDK's DescribeTable; `if_not_exists`;
//! and designs that cannot work, refused before sending.

mod common;

use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType, ProjectionType, ScalarAttributeType};
use entity_client::{Entity, EntityModel, Error, IndexKind, ValidationError};
use entity_tests::harness::{table, table_name};
use entity_tests::{Employee, Entry, Order, Status, Task, UserProfile};
use std::collections::BTreeMap;

/// A table keyed on a partition key alone.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[index(by_kind(gsi = "gsi1", pk(kind), sk(id)))]
struct Flat {
    id: String,
    kind: String,
}

/// Disagrees with `Task` on what `gsi1` is keyed on.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[sk()]
#[index(by_other(gsi = "gsi1", pk(attr = "otherpk", other), sk(id)))]
struct Clashing {
    id: String,
    other: String,
}

/// An LSI with the same name as `Entry`'s on another attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[sk()]
#[index(by_rank(lsi = "lsi1", sk(attr = "ranksk", rank)))]
struct ClashingLocal {
    id: String,
    rank: u32,
}

/// A key schema as (partition attribute, sort attribute).
fn keys(schema: &[KeySchemaElement]) -> (String, Option<String>) {
    let of = |kind: KeyType| {
        schema
            .iter()
            .find(|k| k.key_type == kind)
            .map(|k| k.attribute_name.clone())
    };
    assert_eq!(schema.len(), 1 + usize::from(of(KeyType::Range).is_some()));
    (
        of(KeyType::Hash).expect("a partition key"),
        of(KeyType::Range),
    )
}

/// The global and local indexes the models declare, by physical name.
#[allow(clippy::type_complexity)]
fn declared(
    models: &[&EntityModel],
) -> (
    BTreeMap<String, (String, Option<String>)>,
    BTreeMap<String, (String, Option<String>)>,
) {
    let (mut global, mut local) = (BTreeMap::new(), BTreeMap::new());
    for model in models {
        for index in model.indexes {
            let name = index.index_name.expect("a physical name").to_owned();
            let keys = (
                index.pk.attribute.to_owned(),
                index.sk.map(|k| k.attribute.to_owned()),
            );
            match index.kind {
                IndexKind::Local => local.insert(name, keys),
                _ => global.insert(name, keys),
            };
        }
    }
    (global, local)
}

#[tokio::test]
async fn the_table_and_its_indexes_follow_the_entity_models() {
    let t = table(&[Task::MODEL]).await;
    let models = [
        Task::MODEL,
        Employee::MODEL,
        UserProfile::MODEL,
        Order::MODEL,
        Entry::MODEL,
    ];
    let client = t.client.with_table(table_name("design"));
    client.create_table(&models).await.unwrap();

    let description = client
        .sdk()
        .describe_table()
        .table_name(client.table())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    assert_eq!(description.table_name(), Some(client.table()));
    assert_eq!(
        keys(description.key_schema()),
        ("pk".to_owned(), Some("sk".to_owned()))
    );

    let (want_global, want_local) = declared(&models);
    assert_eq!(
        want_global.keys().collect::<Vec<_>>(),
        ["gsi1", "gsi2", "gsi3"]
    );
    assert_eq!(want_local.keys().collect::<Vec<_>>(), ["lsi1"]);
    let global: BTreeMap<String, (String, Option<String>)> = description
        .global_secondary_indexes()
        .iter()
        .map(|i| {
            let projection = i.projection().and_then(|p| p.projection_type());
            assert_eq!(projection, Some(&ProjectionType::All));
            (i.index_name().unwrap().to_owned(), keys(i.key_schema()))
        })
        .collect();
    assert_eq!(global, want_global);
    let local: BTreeMap<String, (String, Option<String>)> = description
        .local_secondary_indexes()
        .iter()
        .map(|i| {
            let projection = i.projection().and_then(|p| p.projection_type());
            assert_eq!(projection, Some(&ProjectionType::All));
            (i.index_name().unwrap().to_owned(), keys(i.key_schema()))
        })
        .collect();
    assert_eq!(local, want_local);
    // An LSI shares the table's partition key.
    assert_eq!(local["lsi1"], ("pk".to_owned(), Some("lsi1sk".to_owned())));

    // Every key attribute is defined, as a string, once.
    let mut defined: Vec<(String, ScalarAttributeType)> = description
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name().to_owned(), d.attribute_type().clone()))
        .collect();
    defined.sort_by(|a, b| a.0.cmp(&b.0));
    let names: Vec<&str> = defined.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "lsi1sk", "pk", "sk"]
    );
    assert!(defined.iter().all(|(_, t)| *t == ScalarAttributeType::S));

    // And the table works for every entity: an item written is found
    // through each of its indexes.
    let task = common::task("t1", "p1", "e1", 2, Status::Open);
    client.create(&task).await.unwrap();
    common::eventually(vec![task.clone()], || async {
        client.query(Task::by_project("p1")).all().await.unwrap()
    })
    .await;
    common::eventually(vec![task.clone()], || async {
        client.query(Task::by_assignee("e1")).all().await.unwrap()
    })
    .await;
}

#[tokio::test]
async fn a_table_keyed_on_a_partition_key_only() {
    let t = table(&[Flat::MODEL]).await;
    let description = t
        .client
        .sdk()
        .describe_table()
        .table_name(t.client.table())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    assert_eq!(keys(description.key_schema()), ("pk".to_owned(), None));
    let flat = Flat {
        id: "a".into(),
        kind: "k".into(),
    };
    t.client.put(&flat).await.unwrap();
    assert_eq!(
        t.client.get(Flat::key("a")).await.unwrap(),
        Some(flat.clone())
    );
    common::eventually(vec![flat.clone()], || async {
        t.client.query(Flat::by_kind("k")).all().await.unwrap()
    })
    .await;
}

#[tokio::test]
async fn creating_an_existing_table() {
    let t = table(&[Task::MODEL]).await;
    // The harness created it: a second create is a service error...
    let err = t.client.create_table(&[Task::MODEL]).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Service {
                operation: "CreateTable",
                ..
            }
        ),
        "{err:?}"
    );
    // ... unless asked to succeed when it exists, leaving it as it was.
    t.client
        .put(&common::task("t1", "p", "e", 1, Status::Open))
        .await
        .unwrap();
    t.client
        .create_table(&[Task::MODEL])
        .if_not_exists()
        .await
        .unwrap();
    assert!(t.client.get(Task::key("t1")).await.unwrap().is_some());
    // And a new table with `if_not_exists` is simply created.
    let fresh = t.client.with_table(table_name("fresh"));
    fresh
        .create_table(&[Task::MODEL])
        .if_not_exists()
        .timeout(std::time::Duration::from_secs(60))
        .await
        .unwrap();
    assert!(fresh.scan::<Task>().all().await.unwrap().is_empty());
}

/// A second entity stored under `Task`'s name (another struct named
/// `Task`, or `#[entity(name = "Task")]`).
mod another {
    #[derive(entity_client::Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "myapp", name = "Task")]
    #[pk(id)]
    #[sk()]
    pub struct Chore {
        pub id: String,
        pub note: String,
    }
}

/// Spells `Chore`'s keys by hand: the same values compose the same key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp")]
#[pk(format = "$myapp#v1#task#id_{chore_id}")]
#[sk(format = "$myapp#v1#task")]
struct ChoreCopy {
    chore_id: String,
}

/// The same partition as `ChoreCopy`, another sort key: no overlap.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp")]
#[pk(format = "$myapp#v1#task#id_{chore_id}")]
#[sk(format = "$myapp#v1#task#comment_{at}")]
struct ChoreComment {
    chore_id: String,
    at: u64,
}

/// Two entities that would read or overwrite each other's items in one
/// table are refused, by `create_table` and the design export alike,
/// naming both; entities sharing a partition by design, and versions of
/// one entity, are not.
#[tokio::test]
async fn entities_that_would_mix_their_items_are_refused_naming_both() {
    let t = table(&[Task::MODEL]).await;
    let client = t.client.with_table(table_name("mixed"));
    let overlap = |err: Error| match err {
        Error::Validation(e @ ValidationError::EntitiesOverlap { .. }) => e,
        other => panic!("expected EntitiesOverlap, got {other:?}"),
    };
    let same_name = overlap(
        client
            .create_table(&[Task::MODEL, another::Chore::MODEL])
            .await
            .unwrap_err(),
    );
    assert!(
        matches!(
            same_name,
            ValidationError::EntitiesOverlap {
                overlap: entity_client::Overlap::SameName,
                ..
            }
        ),
        "{same_name:?}"
    );
    assert!(
        same_name.to_string().starts_with(
            "Task { task_id, project_id, employee_id, priority, status, title, tags, estimate, \
             checklist } and Task { id, note } cannot share a table: both are stored under one entity name"
        ),
        "{same_name}"
    );
    assert!(same_name.to_string().contains("#[entity(name = \"...\")]"));

    let same_key = overlap(
        client
            .create_table(&[another::Chore::MODEL, UserProfile::MODEL, ChoreCopy::MODEL])
            .await
            .unwrap_err(),
    );
    assert_eq!(
        same_key.to_string(),
        "Task (pk \"$myapp#v1#task#id_{id}\", sk \"$myapp#v1#task\") and ChoreCopy \
         (pk \"$myapp#v1#task#id_{chore_id}\", sk \"$myapp#v1#task\") cannot share a \
         table: they compose the same table key from the same values, so a write of one \
         would overwrite the other's item; give one a literal text of its own in its key \
         format, such as a prefix naming it"
    );
    // The design export refuses them too.
    let design = entity_client::design::Design::new("app")
        .entity::<another::Chore>(&[])
        .entity::<ChoreCopy>(&[]);
    assert!(matches!(
        design.markdown(),
        Err(Error::Validation(ValidationError::EntitiesOverlap { .. }))
    ));
    // Nothing was created.
    assert!(client
        .sdk()
        .describe_table()
        .table_name(client.table())
        .send()
        .await
        .is_err());

    // One partition, told apart by the sort key; users' profiles and
    // orders (`USER#{user_id}`, `PROFILE` / `ORDER#..`): both fine.
    client
        .create_table(&[
            another::Chore::MODEL,
            ChoreComment::MODEL,
            UserProfile::MODEL,
            Order::MODEL,
        ])
        .await
        .unwrap();
}

#[tokio::test]
async fn designs_that_cannot_work_are_refused_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let client = t.client.with_table(table_name("refused"));
    let refused = |err: Error| match err {
        Error::Validation(ValidationError::TableDesign(message)) => message,
        other => panic!("expected TableDesign, got {other:?}"),
    };
    // No entities.
    refused(client.create_table(&[]).await.unwrap_err());
    // A table key with and without a sort key.
    let message = refused(
        client
            .create_table(&[Task::MODEL, Flat::MODEL])
            .await
            .unwrap_err(),
    );
    assert!(message.contains("Flat"), "{message}");
    assert!(
        message.contains("and no sort key") && message.contains("give each a `#[sk(...)]`"),
        "says what differs and the fix, not Rust's debug output: {message}"
    );
    assert!(!message.contains("Some("), "{message}");
    // One GSI name, two key schemas.
    let message = refused(
        client
            .create_table(&[Task::MODEL, Clashing::MODEL])
            .await
            .unwrap_err(),
    );
    assert!(message.contains("gsi1"), "{message}");
    // One LSI name, two sort keys.
    let message = refused(
        client
            .create_table(&[Entry::MODEL, ClashingLocal::MODEL])
            .await
            .unwrap_err(),
    );
    assert!(message.contains("lsi1"), "{message}");
    // Nothing was created.
    let err = client
        .sdk()
        .describe_table()
        .table_name(client.table())
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(
            aws_sdk_dynamodb::Error::from(err),
            aws_sdk_dynamodb::Error::ResourceNotFoundException(_)
        ),
        "the table does not exist"
    );
}

/// Every operation on a table that does not exist fails with
/// `TableNotFound`, naming the table and how to create it (not the SDK's
/// `ResourceNotFoundException: Requested resource not found`).
#[tokio::test]
async fn operations_on_a_missing_table_name_the_table() {
    let t = table(&[Task::MODEL]).await;
    let name = table_name("missing");
    let missing = t.client.with_table(name.clone());
    let task = common::task("t1", "p", "e", 1, Status::Open);
    let not_found = |err: Error, operation: &str| {
        let message = err.to_string();
        match err {
            Error::TableNotFound {
                table,
                operation: op,
                source,
            } => {
                assert_eq!((table.as_str(), op), (name.as_str(), operation));
                assert!(
                    matches!(
                        *source,
                        aws_sdk_dynamodb::Error::ResourceNotFoundException(_)
                    ),
                    "{source:?}"
                );
            }
            other => panic!("expected TableNotFound from {operation}, got {other:?}"),
        }
        assert!(
            message.contains(&format!("table {name:?} does not exist")),
            "{message}"
        );
        assert!(message.contains("client.create_table(&["), "{message}");
    };
    not_found(missing.get(Task::key("t1")).await.unwrap_err(), "GetItem");
    not_found(missing.put(&task).await.unwrap_err(), "PutItem");
    not_found(missing.upsert(&task).await.unwrap_err(), "UpdateItem");
    not_found(
        missing.delete(Task::key("t1")).await.unwrap_err(),
        "DeleteItem",
    );
    not_found(
        missing.transact_write().put(&task).await.unwrap_err(),
        "TransactWriteItems",
    );
    not_found(
        missing
            .query(Task::by_project("p"))
            .all()
            .await
            .unwrap_err(),
        "Query",
    );
    not_found(
        missing.query(Task::by_project("p")).await.unwrap_err(),
        "Query",
    );
    not_found(missing.scan::<Task>().all().await.unwrap_err(), "Scan");
    // Batches report a failed request in the output, with the keys and
    // requests it could not do.
    let mut out = missing.batch_get([Task::key("t1")]).await.unwrap();
    assert_eq!(out.unprocessed, [Task::key("t1")]);
    not_found(out.errors.remove(0), "BatchGetItem");
    let mut out = missing.batch_write().put(&task).await.unwrap();
    assert_eq!((out.written, out.unprocessed.len()), (0, 1));
    not_found(out.errors.remove(0), "BatchWriteItem");
}

/// A missing index of an existing table is not a missing table.
#[tokio::test]
async fn a_missing_index_is_not_a_missing_table() {
    // Employee's table has gsi1 and gsi3; `Task::by_assignee` reads gsi2.
    let t = table(&[Employee::MODEL]).await;
    let err = t
        .client
        .query(Task::by_assignee("e"))
        .all()
        .await
        .unwrap_err();
    assert!(!matches!(err, Error::TableNotFound { .. }), "{err:?}");
}
