//! `update` and `patch` against a server: every update action, every
//! `return_*` variant, group setters of index key composites (the item moves
//! to its new index keys), and the errors of updates.

mod common;

use common::{eventually, n, s, stored, stored_entity, task};
use entity_client::expr::Update;
use entity_client::{Client, Entity, Error, Query, ValidationError};
use entity_tests::harness::table;
use entity_tests::{Status, Task};
use std::collections::BTreeSet;

/// Numbers, lists, sets and optional fields, keyed on the partition key only.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test", rename_all = "camelCase")]
#[pk(id)]
struct Counter {
    id: String,
    views: u64,
    balance: i64,
    ratio: Option<f64>,
    log: Vec<String>,
    labels: BTreeSet<String>,
    scores: BTreeSet<i64>,
    note: Option<String>,
}

fn counter(id: &str) -> Counter {
    Counter {
        id: id.into(),
        views: 10,
        balance: -3,
        ratio: Some(0.25),
        log: vec!["b".into()],
        labels: ["x".to_owned()].into(),
        scores: [1, 2].into(),
        note: None,
    }
}

/// An index whose sort key holds a table key composite: its group setter is
/// guarded by that composite's value.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test", rename_all = "camelCase")]
#[pk(org)]
#[sk(member_id)]
#[index(by_rank(gsi = "gsi1", pk(org), sk(rank, member_id)))]
struct Member {
    org: String,
    member_id: String,
    rank: u32,
    name: String,
}

fn strings<const N: usize>(items: [&str; N]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn set_and_remove_return_the_new_item() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    client.put(&counter("c1")).await.unwrap();
    let f = Counter::fields();
    let new = client
        .update(Counter::key("c1"))
        .set(f.note, "hello")
        .set(f.views, 42u64)
        .remove(f.ratio)
        .return_new()
        .await
        .unwrap();
    let mut expected = counter("c1");
    expected.note = Some("hello".into());
    expected.views = 42;
    expected.ratio = None;
    assert_eq!(new, expected);
    let item = stored(client, &Counter::key("c1")).await.unwrap();
    assert!(!item.contains_key("ratio"));
    assert_eq!(item["note"], s("hello"));
    assert_eq!(item["views"], n("42"));
    assert_eq!(item, expected.to_item().unwrap());
}

#[tokio::test]
async fn add_and_subtract_numbers_from_zero_when_absent() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    let mut c = counter("c1");
    c.ratio = None;
    client.put(&c).await.unwrap();
    let f = Counter::fields();
    client
        .patch(Counter::key("c1"))
        .add(f.views, 5u64)
        .subtract(f.balance, 7i64)
        .add(f.ratio, 0.5)
        .await
        .unwrap();
    let stored = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!(
        (stored.views, stored.balance, stored.ratio),
        (15, -10, Some(0.5))
    );
    client
        .patch(Counter::key("c1"))
        .subtract(f.ratio, 0.25)
        .add(f.balance, 20i64)
        .await
        .unwrap();
    let stored = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!((stored.balance, stored.ratio), (10, Some(0.25)));
}

#[tokio::test]
async fn append_and_prepend_to_lists() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    client.put(&counter("c1")).await.unwrap();
    let f = Counter::fields();
    let new = client
        .patch(Counter::key("c1"))
        .append(f.log, vec!["c".to_owned(), "d".to_owned()])
        .return_new()
        .await
        .unwrap();
    assert_eq!(new.log, ["b", "c", "d"]);
    client
        .patch(Counter::key("c1"))
        .prepend(f.log, vec!["a".to_owned()])
        .await
        .unwrap();
    let stored = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!(stored.log, ["a", "b", "c", "d"]);
}

#[tokio::test]
async fn add_to_and_delete_from_sets() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    client.put(&counter("c1")).await.unwrap();
    let f = Counter::fields();
    client
        .patch(Counter::key("c1"))
        .add_to_set(f.labels, strings(["y", "z"]))
        .add_to_set(f.scores, [3i64, -4].into())
        .await
        .unwrap();
    let stored_c = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!(stored_c.labels, strings(["x", "y", "z"]));
    assert_eq!(stored_c.scores, [-4, 1, 2, 3].into());

    client
        .patch(Counter::key("c1"))
        .delete_from_set(f.labels, strings(["x", "missing"]))
        .delete_from_set(f.scores, [1i64].into())
        .await
        .unwrap();
    let stored_c = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!(stored_c.labels, strings(["y", "z"]));
    assert_eq!(stored_c.scores, [-4, 2, 3].into());

    // Deleting the last members removes the attribute; it reads as empty.
    client
        .patch(Counter::key("c1"))
        .delete_from_set(f.labels, strings(["y", "z"]))
        .await
        .unwrap();
    let item = stored(client, &Counter::key("c1")).await.unwrap();
    assert!(!item.contains_key("labels"), "{item:?}");
    assert!(Counter::from_item(item).unwrap().labels.is_empty());

    // Adding to an absent set creates it.
    client
        .patch(Counter::key("c1"))
        .add_to_set(f.labels, strings(["new"]))
        .await
        .unwrap();
    let stored_c = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!(stored_c.labels, strings(["new"]));
}

#[tokio::test]
async fn set_if_not_exists_keeps_an_existing_value() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    client.put(&counter("c1")).await.unwrap();
    let f = Counter::fields();
    client
        .patch(Counter::key("c1"))
        .set_if_not_exists(f.note, "first")
        .set_if_not_exists(f.views, 999u64)
        .await
        .unwrap();
    let c = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!((c.note.as_deref(), c.views), (Some("first"), 10));
    client
        .patch(Counter::key("c1"))
        .set_if_not_exists(f.note, "second")
        .await
        .unwrap();
    let c = stored_entity(client, &Counter::key("c1")).await.unwrap();
    assert_eq!(c.note.as_deref(), Some("first"));
}

#[tokio::test]
async fn every_return_value() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    let original = counter("c1");
    client.put(&original).await.unwrap();
    let f = Counter::fields();

    let old = client
        .patch(Counter::key("c1"))
        .add(f.views, 1u64)
        .return_old()
        .await
        .unwrap();
    assert_eq!(old, Some(original.clone()));

    let updated_old = client
        .patch(Counter::key("c1"))
        .add(f.views, 1u64)
        .set(f.note, "n")
        .return_updated_old()
        .await
        .unwrap();
    // Only the changed attributes (and the identity attributes every update
    // writes); `note` had no value before.
    assert_eq!(updated_old["views"], n("11"));
    assert!(!updated_old.contains_key("note"));
    assert!(!updated_old.contains_key("balance"));

    let updated_new = client
        .patch(Counter::key("c1"))
        .add(f.views, 1u64)
        .set(f.note, "m")
        .return_updated_new()
        .await
        .unwrap();
    assert_eq!(updated_new["views"], n("13"));
    assert_eq!(updated_new["note"], s("m"));
    assert!(!updated_new.contains_key("balance"));
    assert!(!updated_new.contains_key("labels"));

    // By default, nothing is returned.
    let () = client
        .patch(Counter::key("c1"))
        .add(f.views, 1u64)
        .await
        .unwrap();
    assert_eq!(
        stored_entity(client, &Counter::key("c1"))
            .await
            .unwrap()
            .views,
        14
    );

    // `update` of a missing item: nothing before it.
    let old = client
        .update(Counter::key("c2"))
        .set(f.note, "created")
        .return_old()
        .await
        .unwrap();
    assert_eq!(old, None);
}

#[tokio::test]
async fn update_creates_a_missing_item_with_its_identity() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    let f = Counter::fields();
    client
        .update(Counter::key("fresh"))
        .add(f.views, 3u64)
        .await
        .unwrap();
    let item = stored(client, &Counter::key("fresh"))
        .await
        .expect("update creates the item");
    assert_eq!(item["pk"], s(&Counter::key("fresh").pk));
    assert_eq!(item["views"], n("3"));
    assert_eq!(item["__entity"], s("Counter"));
    assert_eq!(item["__version"], n("1"));
}

#[tokio::test]
async fn update_with_changes_built_separately() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    client.put(&counter("c1")).await.unwrap();
    let f = Counter::fields();
    let changes = Update::<Counter>::new()
        .set(f.note, "from an Update")
        .add(f.views, 2u64);
    let new = client
        .patch(Counter::key("c1"))
        .changes(changes)
        .return_new()
        .await
        .unwrap();
    assert_eq!(
        (new.note.as_deref(), new.views),
        (Some("from an Update"), 12)
    );
    assert_eq!(
        stored_entity(client, &Counter::key("c1")).await.unwrap(),
        new
    );
}

#[tokio::test]
async fn patch_fails_with_not_found_and_creates_nothing() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    let f = Counter::fields();
    let err = client
        .patch(Counter::key("missing"))
        .set(f.note, "x")
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::NotFound { entity: "Counter" }),
        "{err:?}"
    );
    assert_eq!(stored(client, &Counter::key("missing")).await, None);
    let err = client
        .patch(Counter::key("missing"))
        .set(f.note, "x")
        .return_new()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn a_failed_condition_changes_nothing_and_returns_the_item() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    let original = counter("c1");
    client.put(&original).await.unwrap();
    let f = Counter::fields();
    let err = client
        .patch(Counter::key("c1"))
        .add(f.views, 1u64)
        .condition(f.views.gt(100u64))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::ConditionFailed {
                entity: "Counter",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        Counter::from_item(err.old_item().unwrap().clone()).unwrap(),
        original
    );
    assert_eq!(
        stored_entity(client, &Counter::key("c1")).await.unwrap(),
        original
    );
    // `update` (no existence condition) with a failed condition on a
    // missing item is a failed condition with no old item.
    let err = client
        .update(Counter::key("none"))
        .add(f.views, 1u64)
        .condition(f.views.exists())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::ConditionFailed { old: None, .. }),
        "{err:?}"
    );
    assert_eq!(stored(client, &Counter::key("none")).await, None);
}

#[tokio::test]
async fn empty_and_unstorable_updates_are_refused_before_sending() {
    let t = table(&[Counter::MODEL]).await;
    let client = &t.client;
    client.put(&counter("c1")).await.unwrap();
    let err = client.patch(Counter::key("c1")).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Validation(ValidationError::EmptyUpdate { entity: "Counter" })
        ),
        "{err:?}"
    );
    let f = Counter::fields();
    let err = client
        .patch(Counter::key("c1"))
        .set(f.ratio, f64::NAN)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::Value { .. })),
        "{err:?}"
    );
    let err = client
        .patch(Counter::key("c1"))
        .set(f.note, "ok")
        .condition(f.ratio.lt(f64::INFINITY))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::Value { .. })),
        "{err:?}"
    );
    assert_eq!(
        stored_entity(client, &Counter::key("c1")).await.unwrap(),
        counter("c1")
    );
}

/// Waits until `query` finds exactly the tasks `want`, in order (global
/// indexes are eventually consistent on some servers).
async fn finds(client: &Client, query: impl Into<Query<Task>>, want: &[&str]) {
    let query = query.into();
    let want: Vec<String> = want.iter().map(|id| (*id).to_owned()).collect();
    eventually(want, || async {
        let tasks = client.query(query.clone()).all().await.unwrap();
        tasks.into_iter().map(|t| t.task_id).collect::<Vec<_>>()
    })
    .await;
}

#[tokio::test]
async fn group_setter_moves_the_item_to_its_new_index_keys() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let original = task("t1", "p1", "e1", 3, Status::Open);
    client.put(&original).await.unwrap();
    // Another task stays where it is.
    client
        .put(&task("t2", "p1", "e1", 3, Status::Open))
        .await
        .unwrap();

    let new = client
        .patch(Task::key("t1"))
        .apply(Task::set_priority_status(5, Status::Done))
        .return_new()
        .await
        .unwrap();
    let mut expected = original.clone();
    expected.priority = 5;
    expected.status = Status::Done;
    assert_eq!(new, expected);

    // The stored item is exactly what a put of the new value would write:
    // both index sort keys are recomposed.
    let item = stored(client, &Task::key("t1")).await.unwrap();
    assert_eq!(item["gsi1sk"], s("$myapp#v1#task#priority_005#status_done"));
    assert_eq!(item["gsi2sk"], s("$myapp#v1#task#priority_005"));
    assert_eq!(item, expected.to_item().unwrap());

    // Found under the new keys, not under the old ones.
    finds(
        client,
        Task::by_project("p1")
            .priority()
            .eq(5)
            .status()
            .eq(Status::Done),
        &["t1"],
    )
    .await;
    finds(client, Task::by_project("p1").priority().eq(3), &["t2"]).await;
    finds(client, Task::by_assignee("e1").priority().eq(5), &["t1"]).await;
    finds(client, Task::by_assignee("e1").priority().eq(3), &["t2"]).await;

    // A partition key composite moves the item to another partition.
    client
        .patch(Task::key("t1"))
        .apply(Task::set_project_id("p2"))
        .await
        .unwrap();
    let item = stored(client, &Task::key("t1")).await.unwrap();
    assert_eq!(item["gsi1pk"], s("$myapp#v1#task#projectid_p2"));
    assert_eq!(item["projectId"], s("p2"));
    finds(client, Task::by_project("p2"), &["t1"]).await;
    finds(client, Task::by_project("p1"), &["t2"]).await;
}

#[tokio::test]
async fn group_setter_guards_the_table_key_composites_it_uses() {
    let t = table(&[Member::MODEL]).await;
    let client = &t.client;
    let member = Member {
        org: "o1".into(),
        member_id: "m1".into(),
        rank: 2,
        name: "Ada".into(),
    };
    client.put(&member).await.unwrap();

    // The setter is given the wrong member id: the recomposed key would be
    // wrong, so the update is refused by its guard and nothing changes.
    let err = client
        .patch(Member::key("o1", "m1"))
        .apply(Member::set_rank(9, "m2".to_owned()))
        .await
        .unwrap_err();
    // The error names the composite that differs, and why it matters.
    match &err {
        Error::ConditionFailed { why, .. } => assert_eq!(
            why,
            &entity_client::FailedCondition::Composites {
                differ: vec!["member_id"]
            }
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "condition failed on a Member write, nothing was written: the stored `member_id` differs from the value given to the group setter, which recomposes index keys from it: pass the stored value (read the item first)"
    );
    assert_eq!(
        stored_entity(client, &Member::key("o1", "m1"))
            .await
            .unwrap(),
        member
    );

    client
        .patch(Member::key("o1", "m1"))
        .apply(Member::set_rank(9, "m1"))
        .await
        .unwrap();
    let mut expected = member.clone();
    expected.rank = 9;
    let item = stored(client, &Member::key("o1", "m1")).await.unwrap();
    assert_eq!(item, expected.to_item().unwrap());
    eventually(vec![expected], || async {
        client
            .query(Member::by_rank("o1").rank().gte(5))
            .all()
            .await
            .unwrap()
    })
    .await;
    eventually(Vec::new(), || async {
        client
            .query(Member::by_rank("o1").rank().lt(5))
            .all()
            .await
            .unwrap()
    })
    .await;
}

/// An update of a missing item creates it with its key fields, so once the
/// required fields are set it reads back as the entity.
#[tokio::test]
async fn an_update_that_creates_the_item_writes_its_key_fields() {
    #[derive(entity_client::Entity, Debug, PartialEq)]
    #[entity(schema = "app")]
    #[pk(tenant, doc_id)]
    #[sk(kind)]
    struct Doc {
        tenant: String,
        doc_id: u32,
        kind: String,
        views: u32,
        title: Option<String>,
    }
    let t = entity_tests::harness::table(&[Doc::MODEL]).await;
    let f = Doc::fields();
    t.client
        .update(Doc::key("acme", 7u32, "note"))
        .add(f.views, 1u32)
        .await
        .unwrap();
    let doc = t.client.get(Doc::key("acme", 7u32, "note")).await.unwrap();
    assert_eq!(
        doc,
        Some(Doc {
            tenant: "acme".into(),
            doc_id: 7,
            kind: "note".into(),
            views: 1,
            title: None
        })
    );
}

/// `add` and `subtract` never store a number the field cannot read back:
/// out of the type's range they fail as a condition, and nothing changes.
#[tokio::test]
async fn arithmetic_stays_inside_the_fields_type() {
    #[derive(entity_client::Entity, Debug, PartialEq)]
    #[entity(schema = "app")]
    #[pk(id)]
    struct Counter {
        id: String,
        small: u8,
        count: u32,
    }
    let t = entity_tests::harness::table(&[Counter::MODEL]).await;
    let f = Counter::fields();
    t.client
        .put(&Counter {
            id: "c".into(),
            small: 100,
            count: 0,
        })
        .await
        .unwrap();
    let err = t
        .client
        .update(Counter::key("c"))
        .subtract(f.count, 1u32)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err}");
    let err = t
        .client
        .update(Counter::key("c"))
        .add(f.small, 200u8)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err}");
    t.client
        .update(Counter::key("c"))
        .add(f.small, 155u8)
        .add(f.count, 7u32)
        .await
        .unwrap();
    t.client
        .update(Counter::key("c"))
        .subtract(f.count, 7u32)
        .await
        .unwrap();
    let stored = t.client.get(Counter::key("c")).await.unwrap();
    assert_eq!(
        stored,
        Some(Counter {
            id: "c".into(),
            small: 255,
            count: 0
        })
    );
    // A missing counter starts from 0: adding works, subtracting below 0 does not.
    t.client
        .update(Counter::key("new"))
        .add(f.count, 3u32)
        .add(f.small, 1u8)
        .await
        .unwrap();
    let err = t
        .client
        .update(Counter::key("other"))
        .subtract(f.count, 1u32)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err}");
}

/// A field stored through serde is updated through serde.
#[tokio::test]
async fn serde_fields_are_set_through_serde() {
    let t = entity_tests::harness::table(&[entity_tests::Task::MODEL]).await;
    let task = common::task("t1", "p", "e", 1, entity_tests::Status::Open);
    t.client.put(&task).await.unwrap();
    let f = entity_tests::Task::fields();
    let checklist = vec![entity_tests::ChecklistItem {
        text: "ship".into(),
        done: true,
    }];
    let updated = t
        .client
        .patch(entity_tests::Task::key("t1"))
        .set_serde(f.checklist, &checklist)
        .return_new()
        .await
        .unwrap();
    assert_eq!(updated.checklist, checklist);
}
