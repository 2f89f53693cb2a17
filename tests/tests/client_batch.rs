//! Batch reads and writes against a server: several chunks (over 100 keys,
//! over 25 writes), duplicates, missing keys, mixed entities, and the
//! requests refused before sending.

mod common;

use common::{scan_raw, stored, stored_entity, task};
use entity_client::{BatchPolicy, Entity, Error, ValidationError};
use entity_tests::harness::table;
use entity_tests::{Employee, Status, Task};
use std::collections::BTreeMap;
use std::time::Duration;

fn tasks(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| {
            task(
                &format!("t{i:04}"),
                &format!("p{}", i % 5),
                "e",
                (i % 10) as u8,
                Status::Open,
            )
        })
        .collect()
}

fn employee(i: usize) -> Employee {
    Employee {
        employee_id: format!("emp-{i:03}"),
        tenant_id: "acme".into(),
        department: "ops".into(),
        hire_date: "2024-02-01".into(),
        email: format!("e{i}@acme.test"),
        name: format!("Employee {i}"),
    }
}

fn by_id(tasks: Vec<Task>) -> BTreeMap<String, Task> {
    let mut out = BTreeMap::new();
    for task in tasks {
        let id = task.task_id.clone();
        assert!(out.insert(id.clone(), task).is_none(), "{id} twice");
    }
    out
}

#[tokio::test]
async fn batch_write_puts_in_several_chunks() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let all = tasks(260);
    let out = c.batch_write().put_all(&all).await.unwrap();
    assert_eq!(out.written, 260);
    assert!(out.unprocessed.is_empty());
    // What is stored is exactly the items written.
    let mut stored_items = scan_raw(c).await;
    stored_items.sort_by(|a, b| format!("{:?}", a["pk"]).cmp(&format!("{:?}", b["pk"])));
    let mut want: Vec<_> = all.iter().map(|t| t.to_item().unwrap()).collect();
    want.sort_by(|a, b| format!("{:?}", a["pk"]).cmp(&format!("{:?}", b["pk"])));
    assert_eq!(stored_items, want);
}

#[tokio::test]
async fn batch_write_puts_and_deletes_of_several_entities() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let all = tasks(120);
    c.batch_write().put_all(&all).await.unwrap();

    // Delete 70 tasks, replace 10, add 40 employees: 120 requests.
    let mut batch = c.batch_write();
    for t in &all[..70] {
        batch = batch.delete(Task::key(t.task_id.as_str()));
    }
    let mut replaced = Vec::new();
    for t in &all[70..80] {
        let mut t = t.clone();
        t.title = "replaced".into();
        t.estimate = None;
        batch = batch.put(&t);
        replaced.push(t);
    }
    let staff: Vec<Employee> = (0..40).map(employee).collect();
    batch = batch.put_all(&staff);
    let out = batch.await.unwrap();
    assert_eq!(out.written, 120);
    assert!(out.unprocessed.is_empty());

    for t in &all[..70] {
        assert_eq!(stored(c, &Task::key(t.task_id.as_str())).await, None);
    }
    for t in &replaced {
        assert_eq!(
            stored_entity(c, &Task::key(t.task_id.as_str()))
                .await
                .as_ref(),
            Some(t)
        );
    }
    let remaining = by_id(c.scan::<Task>().all().await.unwrap());
    let want = by_id([replaced.clone(), all[80..].to_vec()].concat());
    assert_eq!(remaining, want);
    let mut got_staff = c.scan::<Employee>().all().await.unwrap();
    got_staff.sort_by(|a, b| a.employee_id.cmp(&b.employee_id));
    assert_eq!(got_staff, staff);
    // Deleting keys with no item is not an error.
    let out = c
        .batch_write()
        .delete(Task::key("never-existed"))
        .delete(Employee::key("nobody"))
        .await
        .unwrap();
    assert_eq!(out.written, 2);
}

#[tokio::test]
async fn batch_get_reads_many_keys_once_each() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let all = tasks(230);
    c.batch_write().put_all(&all).await.unwrap();

    // 230 present keys, 40 missing ones, and 30 repeats: several chunks.
    let mut keys: Vec<_> = all.iter().map(|t| Task::key(t.task_id.as_str())).collect();
    keys.extend((0..40).map(|i| Task::key(format!("missing-{i}"))));
    keys.extend(all[..30].iter().map(|t| Task::key(t.task_id.as_str())));
    let out = c.batch_get(keys).await.unwrap();
    assert!(out.unprocessed.is_empty());
    // Each item once; missing keys are simply absent.
    assert_eq!(by_id(out.items), by_id(all.clone()));

    let out = c
        .batch_get(all[..5].iter().map(|t| Task::key(t.task_id.as_str())))
        .consistent_read(true)
        .await
        .unwrap();
    assert_eq!(by_id(out.items), by_id(all[..5].to_vec()));

    let out = c
        .batch_get((0..150).map(|i| Task::key(format!("absent-{i}"))))
        .await
        .unwrap();
    assert!(out.items.is_empty() && out.unprocessed.is_empty());
    let out = c
        .batch_get(Vec::<entity_client::PrimaryKey<Task>>::new())
        .await
        .unwrap();
    assert!(out.items.is_empty() && out.unprocessed.is_empty());
}

#[tokio::test]
async fn batches_work_one_chunk_at_a_time_too() {
    let t = table(&[Task::MODEL]).await;
    let c = t.client.clone().with_batch_policy(BatchPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(10),
        concurrency: 1,
    });
    let all = tasks(60);
    let out = c.batch_write().put_all(&all).await.unwrap();
    assert_eq!(out.written, 60);
    let out = c
        .batch_get(all.iter().map(|t| Task::key(t.task_id.as_str())))
        .await
        .unwrap();
    assert_eq!(by_id(out.items), by_id(all));
    let out = c.batch_write().await.unwrap();
    assert_eq!(out.written, 0);
    assert!(out.unprocessed.is_empty());
}

#[tokio::test]
async fn a_key_twice_in_one_batch_write_is_refused_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let all = tasks(40);
    // The duplicate is in the second chunk: the first is not sent either.
    let err = c
        .batch_write()
        .put_all(&all)
        .put(&all[30])
        .await
        .unwrap_err();
    let Error::Validation(ValidationError::DuplicateKey { operation, key }) = &err else {
        panic!("expected DuplicateKey, got {err:?}")
    };
    assert_eq!(*operation, "batch write");
    assert!(key.contains("t0030"), "{key}");
    assert!(scan_raw(c).await.is_empty(), "nothing was written");

    // A put and a delete of the same key.
    let err = c
        .batch_write()
        .put(&all[0])
        .delete(Task::key("t0000"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::DuplicateKey { .. })),
        "{err:?}"
    );
    assert!(scan_raw(c).await.is_empty());
}

#[tokio::test]
async fn an_item_over_the_limit_fails_the_whole_batch_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let all = tasks(30);
    let mut huge = task("huge", "p", "e", 1, Status::Open);
    huge.title = "x".repeat(401 * 1024);
    let err = c.batch_write().put_all(&all).put(&huge).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Validation(ValidationError::ItemTooLarge { entity: "Task", .. })
        ),
        "{err:?}"
    );
    assert!(scan_raw(c).await.is_empty());
}

/// An unreadable item does not cost the caller the other items: it comes
/// back as an error in the output, next to everything that was read.
#[tokio::test]
async fn batch_get_reports_unreadable_items_and_keeps_the_rest() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let good: Vec<Task> = (0..5)
        .map(|i| task(&format!("t{i}"), "p", "e", 1, Status::Open))
        .collect();
    t.client.batch_write().put_all(&good).await.unwrap();
    let mut broken = task("bad", "p", "e", 1, Status::Open).to_item().unwrap();
    broken.insert("priority".into(), common::s("high"));
    common::put_raw(&t.client, broken).await;
    let keys = good
        .iter()
        .map(Entity::primary_key)
        .chain([Task::key("bad")]);
    let out = t.client.batch_get(keys).await.unwrap();
    assert_eq!(out.items.len(), 5);
    assert!(out.unprocessed.is_empty());
    assert_eq!(out.errors.len(), 1);
    assert!(
        matches!(&out.errors[0], Error::Decode(e) if e.attribute() == "priority"),
        "{:?}",
        out.errors
    );
}
