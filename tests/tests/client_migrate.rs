//! The migration runner on real data: items written by an old definition
//! are rewritten to the current one (a version bump, a changed index key
//! format, a new index, a new table key), a dry run writes nothing, a run
//! stopped after some pages resumes from its checkpoint, and a concurrent
//! writer is never overwritten.

mod common;

use common::{n, put_raw, stored};
use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, Entity, MigrationCheckpoint, MigrationCounts, MigrationProgress};
use entity_tests::harness::{table, TestTable};
use std::future::IntoFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Version 1: one index, keyed by project then task.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Task", version = 1)]
#[pk(format = "TASK#{task_id}")]
#[sk(format = "task")]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(task_id)))]
struct TaskV1 {
    task_id: String,
    project_id: String,
    assignee: String,
    title: String,
    points: u32,
}

/// Version 2: the same table key, `by_project` sorted by points first, a
/// new `by_assignee` index, a new field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Task", version = 2, upgrade_from = TaskV1)]
#[pk(format = "TASK#{task_id}")]
#[sk(format = "task")]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(points, task_id)))]
#[index(by_assignee(gsi = "gsi2", pk(assignee), sk(task_id)))]
struct Task {
    task_id: String,
    project_id: String,
    assignee: String,
    title: String,
    points: u32,
    done: bool,
}

impl From<TaskV1> for Task {
    fn from(v1: TaskV1) -> Self {
        Task {
            task_id: v1.task_id,
            project_id: v1.project_id,
            assignee: v1.assignee,
            title: v1.title,
            points: v1.points,
            done: false,
        }
    }
}

/// Version 2 with a new table key: the items move.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Task", version = 2, upgrade_from = TaskV1)]
#[pk(project_id)]
#[sk(task_id)]
#[index(by_assignee(gsi = "gsi2", pk(assignee), sk(task_id)))]
struct MovedTask {
    task_id: String,
    project_id: String,
    assignee: String,
    title: String,
    points: u32,
}

impl From<TaskV1> for MovedTask {
    fn from(v1: TaskV1) -> Self {
        MovedTask {
            task_id: v1.task_id,
            project_id: v1.project_id,
            assignee: v1.assignee,
            title: v1.title,
            points: v1.points,
        }
    }
}

/// Another entity in the table, which a migration of `Task` never touches.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Project")]
#[pk(project_id)]
#[sk()]
struct Project {
    project_id: String,
    name: String,
}

fn id(i: usize) -> String {
    format!("t-{i:03}")
}

fn assignee(i: usize) -> String {
    format!("emp-{}", i % 3)
}

fn v1(i: usize) -> TaskV1 {
    TaskV1 {
        task_id: id(i),
        project_id: format!("p-{}", i % 4),
        assignee: assignee(i),
        title: format!("title {i}"),
        points: (i % 7) as u32,
    }
}

async fn seeded(count: usize) -> TestTable {
    let t = table(&[TaskV1::MODEL, Task::MODEL, Project::MODEL]).await;
    for i in 0..count {
        t.client.put(&v1(i)).await.expect("put v1");
    }
    let project = Project {
        project_id: "p-0".into(),
        name: "zero".into(),
    };
    t.client.put(&project).await.expect("put project");
    t
}

fn counts(scanned: u64, rewritten: u64, up_to_date: u64) -> MigrationCounts {
    MigrationCounts {
        scanned,
        rewritten,
        up_to_date,
        ..MigrationCounts::default()
    }
}

/// Every task reads as current through `get` and through the new index,
/// with its version stored as 2.
async fn assert_all_current(client: &Client, count: usize) {
    for i in 0..count {
        let task: Task = client
            .get(Task::key(id(i)))
            .consistent_read(true)
            .await
            .expect("get")
            .expect("present");
        assert_eq!(task, Task::from(v1(i)));
        let raw = stored(client, &Task::key(id(i))).await.expect("stored");
        assert_eq!(raw.get("__version"), Some(&n("2")), "{}", id(i));
    }
    let mut by_index = 0;
    for e in 0..3 {
        let found: Vec<Task> = client
            .query(Task::by_assignee(format!("emp-{e}")))
            .all()
            .await
            .expect("query");
        assert!(found.iter().all(|t| t.assignee == format!("emp-{e}")));
        by_index += found.len();
    }
    assert_eq!(by_index, count);
}

#[tokio::test]
async fn migrates_every_old_item_and_a_second_run_writes_nothing() {
    let t = seeded(40).await;
    // A newer item the current definition cannot read: reported, kept.
    let mut future = Task::from(v1(99)).to_item().expect("item");
    future.insert("__version".into(), n("3"));
    put_raw(&t.client, future.clone()).await;

    let report = t
        .client
        .migrate::<Task>()
        .segments(3)
        .page_size(7)
        .await
        .expect("migrate");
    let expected = MigrationCounts {
        unreadable: 1,
        ..counts(41, 40, 0)
    };
    assert_eq!(report.counts, expected);
    assert!(report.checkpoint.is_complete());
    assert_eq!(report.unreadable.len(), 1);
    assert_eq!(report.unreadable[0].key.get("pk"), future.get("pk"));
    assert_all_current(&t.client, 40).await;
    assert_eq!(stored(&t.client, &Task::key(id(99))).await, Some(future));

    let again = t.client.migrate::<Task>().segments(2).await.expect("again");
    let expected = MigrationCounts {
        unreadable: 1,
        ..counts(41, 0, 40)
    };
    assert_eq!(again.counts, expected);
    let project = t.client.get(Project::key("p-0")).await.expect("get");
    assert_eq!(project.map(|p| p.name).as_deref(), Some("zero"));
}

#[tokio::test]
async fn a_new_table_key_moves_every_item() {
    let t = table(&[TaskV1::MODEL, MovedTask::MODEL]).await;
    for i in 0..20 {
        t.client.put(&v1(i)).await.expect("put v1");
    }
    let report = t
        .client
        .migrate::<MovedTask>()
        .segments(2)
        .page_size(5)
        .await
        .expect("migrate");
    // A moved item may be met again later in the scan, up to date.
    assert_eq!(report.counts.rewritten, 20);
    assert_eq!(report.counts.skipped_concurrent, 0);
    assert_eq!(report.counts.scanned, 20 + report.counts.up_to_date);
    for i in 0..20 {
        let old = stored(&t.client, &TaskV1::key(id(i))).await;
        assert_eq!(old, None, "the old item is deleted");
        let task = t
            .client
            .get(MovedTask::key(v1(i).project_id, id(i)))
            .consistent_read(true)
            .await
            .expect("get");
        assert_eq!(task, Some(MovedTask::from(v1(i))));
    }
    let again = t.client.migrate::<MovedTask>().await.expect("again");
    assert_eq!(again.counts, counts(20, 0, 20));
}

#[tokio::test]
async fn a_dry_run_counts_and_writes_nothing() {
    let t = seeded(20).await;
    for i in 20..25 {
        t.client.put(&Task::from(v1(i))).await.expect("put current");
    }
    let before: Vec<_> = raw_items(&t.client).await;
    let report = t
        .client
        .migrate::<Task>()
        .dry_run(true)
        .segments(2)
        .page_size(6)
        .await
        .expect("dry run");
    assert!(report.dry_run);
    assert_eq!(report.counts, counts(25, 20, 5));
    assert_eq!(raw_items(&t.client).await, before);
}

/// Every item in the table, sorted by key.
async fn raw_items(client: &Client) -> Vec<Vec<(String, String)>> {
    let output = client
        .sdk()
        .scan()
        .table_name(client.table())
        .consistent_read(true)
        .into_paginator()
        .items()
        .send()
        .collect::<Result<Vec<_>, _>>()
        .await
        .expect("raw scan");
    let mut items: Vec<Vec<(String, String)>> = output
        .into_iter()
        .map(|item| {
            let mut attributes: Vec<_> = item
                .into_iter()
                .map(|(k, v)| (k, format!("{v:?}")))
                .collect();
            attributes.sort();
            attributes
        })
        .collect();
    items.sort();
    items
}

/// Runs a migration in a task whose progress callback saves the checkpoint
/// (as JSON, as a user would) and panics, like a crashed process, after
/// `pages` pages.
async fn crash_after(
    client: &Client,
    segments: u32,
    pages: usize,
) -> (MigrationCounts, MigrationCheckpoint) {
    let saved: Arc<Mutex<Option<(MigrationCounts, String)>>> = Arc::default();
    let keep = saved.clone();
    let mut seen = 0;
    let migration = client
        .migrate::<Task>()
        .segments(segments)
        .page_size(4)
        .on_progress(move |p: &MigrationProgress| {
            let json = p.checkpoint.to_json();
            // serde (feature `serde`) writes the same JSON.
            let via_serde = serde_json::to_value(&p.checkpoint).expect("serde");
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&json).ok(),
                Some(via_serde)
            );
            *keep.lock().unwrap() = Some((p.counts, json));
            seen += 1;
            if seen == pages {
                panic!("crash after {pages} pages");
            }
        });
    let crashed = tokio::spawn(migration.into_future()).await;
    assert!(crashed.is_err_and(|e| e.is_panic()), "the run crashed");
    let (counts, json) = saved.lock().unwrap().take().expect("a checkpoint");
    let checkpoint = MigrationCheckpoint::from_json(&json).expect("checkpoint from JSON");
    let via_serde: MigrationCheckpoint = serde_json::from_str(&json).expect("serde reads it");
    assert_eq!(via_serde, checkpoint);
    (counts, checkpoint)
}

#[tokio::test]
async fn a_crashed_run_resumes_from_its_checkpoint() {
    let t = seeded(30).await;
    let (first, checkpoint) = crash_after(&t.client, 1, 3).await;
    assert!(!checkpoint.is_complete());
    assert_eq!(first.rewritten, first.scanned);
    assert!(first.scanned > 0 && first.scanned < 30);

    let second = t
        .client
        .migrate::<Task>()
        .resume(checkpoint)
        .await
        .expect("resume");
    // One segment: nothing after the checkpoint was written before the
    // crash, nothing before it is read again.
    assert_eq!(
        second.counts,
        counts(30 - first.scanned, 30 - first.rewritten, 0)
    );
    assert!(second.checkpoint.is_complete());
    assert_all_current(&t.client, 30).await;
}

#[tokio::test]
async fn a_crashed_parallel_run_resumes_from_its_checkpoint() {
    let t = seeded(40).await;
    let (first, checkpoint) = crash_after(&t.client, 4, 3).await;
    let second = t
        .client
        .migrate::<Task>()
        .resume(checkpoint.clone())
        .await
        .expect("resume");
    // Segments read past their checkpoint before the crash are read again:
    // what they rewrote is up to date now.
    assert_eq!(second.counts.scanned, 40 - first.scanned);
    assert!(first.rewritten + second.counts.rewritten <= 40);
    assert_eq!(
        second.counts.rewritten + second.counts.up_to_date,
        second.counts.scanned
    );
    assert_all_current(&t.client, 40).await;

    let resumed_twice = t
        .client
        .migrate::<Task>()
        .resume(checkpoint)
        .segments(2)
        .await;
    assert!(
        resumed_twice.is_err(),
        "a checkpoint resumes with its own segment count"
    );
}

#[tokio::test]
async fn a_concurrent_writer_is_never_overwritten() {
    let t = seeded(12).await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let migrating = Client::local(proxy.endpoint(), t.client.table());
    // The first rewrite is held at the proxy while the writer changes every
    // item through the current definition.
    proxy.faults().script(
        Operation::PutItem,
        [Fault::Delay(Duration::from_millis(1500))],
    );
    let migration = tokio::spawn(migrating.migrate::<Task>().page_size(1).into_future());
    while proxy.faults().counts(Operation::PutItem).received == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let f = Task::fields();
    for i in 0..12 {
        let title = format!("edited {i}");
        if i % 2 == 0 {
            let update = t.client.patch(Task::key(id(i))).set(f.title, title);
            update.await.expect("patch");
        } else {
            let task = Task {
                title,
                ..Task::from(v1(i))
            };
            t.client.put(&task).await.expect("put");
        }
    }
    let report = migration.await.expect("no panic").expect("migrate");
    let c = report.counts;
    assert_eq!(c.scanned, 12);
    assert!(
        c.skipped_concurrent >= 1,
        "the held rewrite was refused: {c:?}"
    );
    assert_eq!(c.rewritten + c.up_to_date + c.skipped_concurrent, 12);
    for i in 0..12 {
        let task: Task = t
            .client
            .get(Task::key(id(i)))
            .consistent_read(true)
            .await
            .expect("get")
            .expect("present");
        assert_eq!(
            task.title,
            format!("edited {i}"),
            "the writer's title survives"
        );
    }
    // What was skipped is migrated by the next run, but for what the
    // writer's patches upgraded themselves (an update of an older item
    // rewrites it as the current version first).
    let again = t.client.migrate::<Task>().await.expect("again");
    assert!(again.counts.rewritten <= c.skipped_concurrent, "{again:?}");
    assert_eq!(again.counts.rewritten + again.counts.up_to_date, 12);
    assert_all_titles_and_versions(&t.client).await;
}

async fn assert_all_titles_and_versions(client: &Client) {
    for i in 0..12 {
        let raw = stored(client, &Task::key(id(i))).await.expect("stored");
        assert_eq!(raw.get("__version"), Some(&n("2")));
        assert_eq!(raw.get("title"), Some(&common::s(&format!("edited {i}"))));
    }
}

/// Version 1 of a task whose title is unique.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Ticket", version = 1, unique(title))]
#[pk(format = "TICKET#{ticket_id}")]
#[sk(format = "ticket")]
struct TicketV1 {
    ticket_id: String,
    project_id: String,
    title: String,
}

/// Version 2 under a new table key: its unique sentinels must follow.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Ticket", version = 2, upgrade_from = TicketV1, unique(title))]
#[pk(project_id)]
#[sk(ticket_id)]
struct MovedTicket {
    ticket_id: String,
    project_id: String,
    title: String,
}

impl From<TicketV1> for MovedTicket {
    fn from(v1: TicketV1) -> Self {
        MovedTicket {
            ticket_id: v1.ticket_id,
            project_id: v1.project_id,
            title: v1.title,
        }
    }
}

#[tokio::test]
async fn a_moved_item_takes_its_unique_sentinels_along() {
    let t = table(&[TicketV1::MODEL, MovedTicket::MODEL]).await;
    let v1 = TicketV1 {
        ticket_id: "k1".into(),
        project_id: "p1".into(),
        title: "Printer on fire".into(),
    };
    t.client.create(&v1).await.expect("create v1");

    let report = t.client.migrate::<MovedTicket>().await.expect("migrate");
    assert_eq!(report.counts.rewritten, 1);

    let found = t
        .client
        .get_unique(MovedTicket::by_title("Printer on fire"))
        .await
        .expect("lookup");
    assert_eq!(found, Some(MovedTicket::from(v1)));
    // The sentinel is the moved item's: deleting the item frees the title.
    t.client
        .remove(MovedTicket::key("p1", "k1"))
        .await
        .expect("remove");
    let again = MovedTicket {
        ticket_id: "k2".into(),
        project_id: "p1".into(),
        title: "Printer on fire".into(),
    };
    t.client.create(&again).await.expect("the title is free");
}
