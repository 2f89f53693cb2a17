//! Index projections (`#[index(.., projection = keys_only | include(..))]`):
//! what `create_table` creates (read back with DescribeTable), what
//! `check_table` calls drift, the design export, and entities that disagree
//! on a shared index, refused.

use aws_sdk_dynamodb::types::{Projection, ProjectionType};
use entity_client::design::Design;
use entity_client::{Drift, Entity, Error, ProjectionMismatch, ValidationError};
use entity_tests::harness::{connect, table};
use std::collections::BTreeMap;

/// An entity with one index of each projection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "proj", name = "Task")]
#[pk(task_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(task_id), projection = include(title, due)))]
#[index(by_status(gsi = "gsi2", pk(status), projection = keys_only))]
#[index(by_rank(lsi = "lsi1", sk(rank), projection = include(title)))]
struct Task {
    task_id: String,
    owner: String,
    status: String,
    rank: u32,
    #[entity(rename = "t")]
    title: String,
    due: String,
    notes: String,
}

/// The same indexes, projecting whole items.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "proj", name = "Task")]
#[pk(task_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(task_id)))]
#[index(by_status(gsi = "gsi2", pk(status), projection = all))]
#[index(by_rank(lsi = "lsi1", sk(rank)))]
struct TaskWhole {
    task_id: String,
    owner: String,
    status: String,
    rank: u32,
    title: String,
}

/// `gsi1` with one field more than `Task` projects.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "proj", name = "Task")]
#[pk(task_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(task_id), projection = include(title, due, notes)))]
#[index(by_status(gsi = "gsi2", pk(status), projection = keys_only))]
#[index(by_rank(lsi = "lsi1", sk(rank), projection = include(title)))]
struct TaskWider {
    task_id: String,
    owner: String,
    status: String,
    rank: u32,
    #[entity(rename = "t")]
    title: String,
    due: String,
    notes: String,
}

/// Another entity sharing `gsi1`, projecting only its keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "proj")]
#[pk(note_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(note_id), projection = keys_only))]
struct Note {
    note_id: String,
    owner: String,
}

/// A projection as (type, sorted non-key attributes).
fn shape(projection: Option<&Projection>) -> (ProjectionType, Vec<String>) {
    let projection = projection.expect("a projection");
    let mut names = projection.non_key_attributes().to_vec();
    names.sort();
    (projection.projection_type().unwrap().clone(), names)
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[tokio::test]
async fn create_table_projects_what_each_index_declares() {
    let t = table(&[Task::MODEL]).await;
    let description = (t.client.sdk().describe_table())
        .table_name(t.client.table())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let global: BTreeMap<&str, _> = (description.global_secondary_indexes().iter())
        .map(|i| (i.index_name().unwrap(), shape(i.projection())))
        .collect();
    // `include(..)` projects the fields' attributes (after renames) and
    // the identity and version attributes.
    assert_eq!(
        global["gsi1"],
        (
            ProjectionType::Include,
            names(&["__entity", "__version", "due", "t"])
        )
    );
    assert_eq!(global["gsi2"], (ProjectionType::KeysOnly, Vec::new()));
    let local = &description.local_secondary_indexes()[0];
    assert_eq!(
        shape(local.projection()),
        (
            ProjectionType::Include,
            names(&["__entity", "__version", "t"])
        )
    );
    // The table its entities created has no drift.
    assert_eq!(t.client.check_table(&[Task::MODEL]).await.unwrap(), []);
}

#[tokio::test]
async fn an_index_projecting_less_than_needed_is_drift() {
    let t = table(&[Task::MODEL]).await;
    let mut drift = t.client.check_table(&[TaskWhole::MODEL]).await.unwrap();
    drift.sort_by_key(|d| d.to_string());
    assert_eq!(
        drift,
        [
            Drift::Projection {
                name: "gsi1".into(),
                expected: "ALL".into(),
                found: "INCLUDE (__entity, __version, due, t)".into(),
            },
            Drift::Projection {
                name: "gsi2".into(),
                expected: "ALL".into(),
                found: "KEYS_ONLY".into(),
            },
            Drift::Projection {
                name: "lsi1".into(),
                expected: "ALL".into(),
                found: "INCLUDE (__entity, __version, t)".into(),
            },
        ]
    );
    assert!(
        drift[0].to_string().contains("projects INCLUDE"),
        "{}",
        drift[0]
    );
    assert!(!drift[0].is_fixable());

    let drift = t.client.check_table(&[TaskWider::MODEL]).await.unwrap();
    assert_eq!(
        drift,
        [Drift::Projection {
            name: "gsi1".into(),
            expected: "INCLUDE (__entity, __version, due, notes, t)".into(),
            found: "INCLUDE (__entity, __version, due, t)".into(),
        }]
    );
}

#[tokio::test]
async fn an_index_projecting_more_than_needed_is_no_drift() {
    let t = table(&[TaskWhole::MODEL]).await;
    assert_eq!(t.client.check_table(&[Task::MODEL]).await.unwrap(), []);
}

#[tokio::test]
async fn entities_sharing_an_index_agree_on_its_projection() {
    let t = connect().await;
    let err = t
        .client
        .create_table(&[Task::MODEL, Note::MODEL])
        .await
        .unwrap_err();
    let Error::Validation(ValidationError::IndexProjectionMismatch(mismatch)) = &err else {
        panic!("expected a projection mismatch, got {err:?}");
    };
    let ProjectionMismatch {
        index,
        first,
        first_projection,
        second,
        second_projection,
    } = &**mismatch;
    assert_eq!(
        (index.as_str(), first.as_str(), second.as_str()),
        ("gsi1", "Task", "Note")
    );
    assert_eq!(first_projection, "INCLUDE (__entity, __version, due, t)");
    assert_eq!(second_projection, "KEYS_ONLY");
    assert!(
        err.to_string().contains("declare the same `projection`"),
        "{err}"
    );
}

#[test]
fn the_design_export_shows_each_projection() {
    let model: serde_json::Value =
        serde_json::from_str(&Design::new("app").entity::<Task>(&[]).workbench().unwrap()).unwrap();
    let indexes = model["DataModel"][0]["GlobalSecondaryIndexes"]
        .as_array()
        .unwrap();
    let projection = |name: &str| {
        let index = indexes.iter().find(|i| i["IndexName"] == name).unwrap();
        index["Projection"].clone()
    };
    assert_eq!(
        projection("gsi1"),
        serde_json::json!({
            "ProjectionType": "INCLUDE",
            "NonKeyAttributes": ["__entity", "__version", "due", "t"],
        })
    );
    assert_eq!(
        projection("gsi2"),
        serde_json::json!({ "ProjectionType": "KEYS_ONLY" })
    );
}

/// `Task` before it had indexes.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "proj", name = "Task")]
#[pk(task_id)]
#[sk()]
struct TaskBare {
    task_id: String,
    owner: String,
}

/// `Task` with one projected global index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "proj", name = "Task")]
#[pk(task_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(task_id), projection = include(title)))]
struct TaskOwned {
    task_id: String,
    owner: String,
    title: String,
}

#[tokio::test]
async fn sync_table_adds_a_global_index_with_its_projection() {
    let t = table(&[TaskBare::MODEL]).await;
    let synced = (t.client)
        .sync_table(&[TaskOwned::MODEL], std::time::Duration::from_secs(30))
        .await;
    match synced {
        Ok(left) => assert_eq!(left, []),
        // DynamoDB Local builds an added index in the background, which
        // under a whole test run's load can outlast the wait: the index is
        // there, with its projection, still being built.
        Err(entity_client::Error::Validation(entity_client::ValidationError::TableDesign(
            message,
        ))) if message.contains("was not active") => {}
        Err(other) => panic!("{other:?}"),
    }
    let description = (t.client.sdk().describe_table())
        .table_name(t.client.table())
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    let gsi = &description.global_secondary_indexes()[0];
    assert_eq!(
        shape(gsi.projection()),
        (
            ProjectionType::Include,
            names(&["__entity", "__version", "title"])
        )
    );
    assert_eq!(t.client.check_table(&[TaskOwned::MODEL]).await.unwrap(), []);
}
