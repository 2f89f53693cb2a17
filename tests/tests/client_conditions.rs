//! Every condition operator, evaluated by the server: a conditional write
//! either changes the stored item or fails with `Error::ConditionFailed`
//! carrying the item as it was, and changes nothing.

mod common;

use common::{s, stored, task};
use entity_client::expr::{Condition, SizeOp};
use entity_client::{Client, Entity, Error};
use entity_tests::harness::table;
use entity_tests::{Status, Task};
use std::sync::atomic::{AtomicU32, Ordering};

static MARK: AtomicU32 = AtomicU32::new(0);

/// Whether `condition` holds on the stored task `id`, asked by a
/// conditional patch of its title; checks what is stored either way.
async fn holds(client: &Client, id: &str, condition: Condition<Task>) -> bool {
    let key = Task::key(id);
    let before = stored(client, &key).await.expect("the task exists");
    let mark = format!("mark {}", MARK.fetch_add(1, Ordering::Relaxed));
    let f = Task::fields();
    let result = client
        .patch(Task::key(id))
        .set(f.title, mark.as_str())
        .condition(condition)
        .await;
    let after = stored(client, &key).await.expect("the task still exists");
    match result {
        Ok(()) => {
            assert_eq!(after["title"], s(&mark));
            true
        }
        Err(err @ Error::ConditionFailed { .. }) => {
            assert_eq!(err.old_item(), Some(&before), "the item as it was");
            assert_eq!(after, before, "nothing was written");
            false
        }
        Err(other) => panic!("unexpected error: {other:?}"),
    }
}

async fn setup() -> entity_tests::harness::TestTable {
    let t = table(&[Task::MODEL]).await;
    // t1: priority 3, in progress, two tags, an estimate, one checklist item.
    t.client
        .put(&task("t1", "proj-alpha", "emp-1", 3, Status::InProgress))
        .await
        .unwrap();
    // t2: no estimate, no tags.
    let mut bare = task("t2", "proj-beta", "emp-2", 7, Status::Open);
    bare.estimate = None;
    bare.tags.clear();
    t.client.put(&bare).await.unwrap();
    t
}

#[tokio::test]
async fn comparisons() {
    let t = setup().await;
    let c = &t.client;
    let f = Task::fields();
    assert!(holds(c, "t1", f.priority.eq(3u8)).await);
    assert!(!holds(c, "t1", f.priority.eq(4u8)).await);
    assert!(holds(c, "t1", f.priority.ne(4u8)).await);
    assert!(!holds(c, "t1", f.priority.ne(3u8)).await);
    assert!(holds(c, "t1", f.priority.lt(4u8)).await);
    assert!(!holds(c, "t1", f.priority.lt(3u8)).await);
    assert!(holds(c, "t1", f.priority.lte(3u8)).await);
    assert!(!holds(c, "t1", f.priority.lte(2u8)).await);
    assert!(holds(c, "t1", f.priority.gt(2u8)).await);
    assert!(!holds(c, "t1", f.priority.gt(3u8)).await);
    assert!(holds(c, "t1", f.priority.gte(3u8)).await);
    assert!(!holds(c, "t1", f.priority.gte(4u8)).await);
    // Numbers compare as numbers, not text: 10 > 3.
    assert!(!holds(c, "t1", f.priority.gt(10u8)).await);
    // Strings compare as text; enums as their stored names.
    assert!(holds(c, "t1", f.project_id.gt("proj-a")).await);
    assert!(!holds(c, "t1", f.project_id.lt("proj-a")).await);
    assert!(holds(c, "t1", f.status.eq(Status::InProgress)).await);
    assert!(!holds(c, "t1", f.status.eq(Status::Done)).await);
    // Optional fields compare with their inner type.
    assert!(holds(c, "t1", f.estimate.gt(1.0)).await);
    assert!(!holds(c, "t1", f.estimate.gt(2.0)).await);
}

#[tokio::test]
async fn exists_and_not_exists() {
    let t = setup().await;
    let c = &t.client;
    let f = Task::fields();
    assert!(holds(c, "t1", f.estimate.exists()).await);
    assert!(!holds(c, "t1", f.estimate.not_exists()).await);
    assert!(!holds(c, "t2", f.estimate.exists()).await);
    assert!(holds(c, "t2", f.estimate.not_exists()).await);
    // An empty set is not stored at all.
    assert!(holds(c, "t2", f.tags.not_exists()).await);
    assert!(holds(c, "t1", f.tags.exists()).await);
}

#[tokio::test]
async fn begins_with_contains_and_size() {
    let t = setup().await;
    let c = &t.client;
    let f = Task::fields();
    assert!(holds(c, "t1", f.project_id.begins_with("proj-")).await);
    assert!(!holds(c, "t1", f.project_id.begins_with("alpha")).await);
    // A substring of a string, a member of a set.
    assert!(holds(c, "t1", f.project_id.contains("alpha".to_owned())).await);
    assert!(!holds(c, "t1", f.project_id.contains("beta".to_owned())).await);
    assert!(holds(c, "t1", f.tags.contains("rust".to_owned())).await);
    assert!(!holds(c, "t1", f.tags.contains("go".to_owned())).await);
    assert!(!holds(c, "t2", f.tags.contains("rust".to_owned())).await);
    // A string literal, as the doc says.
    assert!(holds(c, "t1", f.project_id.contains("alpha")).await);
    assert!(holds(c, "t1", f.tags.contains("rust")).await);
    assert!(!holds(c, "t1", f.tags.contains("go")).await);
    // Sizes of sets, lists and strings.
    assert!(holds(c, "t1", f.tags.size(SizeOp::Eq, 2)).await);
    assert!(!holds(c, "t1", f.tags.size(SizeOp::Gt, 2)).await);
    assert!(holds(c, "t1", f.tags.size(SizeOp::Gte, 2)).await);
    assert!(holds(c, "t1", f.tags.size(SizeOp::Lt, 3)).await);
    assert!(!holds(c, "t1", f.tags.size(SizeOp::Lte, 1)).await);
    assert!(holds(c, "t1", f.tags.size(SizeOp::Ne, 5)).await);
    assert!(holds(c, "t1", f.checklist.size(SizeOp::Eq, 1)).await);
    assert!(holds(c, "t1", f.project_id.size(SizeOp::Eq, 10)).await);
    assert!(!holds(c, "t1", f.project_id.size(SizeOp::Eq, 11)).await);
}

#[tokio::test]
async fn between_and_is_in() {
    let t = setup().await;
    let c = &t.client;
    let f = Task::fields();
    assert!(holds(c, "t1", f.priority.between(1u8, 3u8)).await);
    assert!(holds(c, "t1", f.priority.between(3u8, 3u8)).await);
    assert!(!holds(c, "t1", f.priority.between(4u8, 9u8)).await);
    assert!(holds(c, "t1", f.estimate.between(1.0, 2.0)).await);
    assert!(holds(c, "t1", f.project_id.between("proj-a", "proj-b")).await);
    assert!(holds(c, "t1", f.status.is_in([Status::Open, Status::InProgress])).await);
    assert!(!holds(c, "t1", f.status.is_in([Status::Done])).await);
    assert!(holds(c, "t2", f.priority.is_in([1u8, 7, 9])).await);
    assert!(!holds(c, "t2", f.priority.is_in([1u8, 2])).await);
}

#[tokio::test]
async fn and_or_not() {
    let t = setup().await;
    let c = &t.client;
    let f = Task::fields();
    let three = || f.priority.eq(3u8);
    let done = || f.status.eq(Status::Done);
    assert!(!holds(c, "t1", three().and(done())).await);
    assert!(holds(c, "t1", three().and(done().not())).await);
    assert!(holds(c, "t1", three().or(done())).await);
    assert!(!holds(c, "t1", three().not().or(done())).await);
    assert!(!holds(c, "t1", three().not()).await);
    assert!(holds(c, "t1", three().not().not()).await);
    // Nested: (tags has rust AND (estimate < 1 OR project starts with proj-)).
    assert!(
        holds(
            c,
            "t1",
            f.tags
                .contains("rust".to_owned())
                .and(f.estimate.lt(1.0).or(f.project_id.begins_with("proj-")))
        )
        .await
    );
    assert!(
        !holds(
            c,
            "t2",
            f.estimate
                .exists()
                .or(f.tags.exists())
                .or(f.priority.lt(5u8))
        )
        .await
    );
    // The same attribute twice, with different values.
    assert!(holds(c, "t1", f.priority.gte(2u8).and(f.priority.lte(4u8))).await);
}
