//! Scans against a server: only the scanned entity's items, filters,
//! parallel segments that return each item exactly once, and results over
//! the 1 MB page limit (asserting on items, never on page counts).

mod common;

use common::{put_raw, s, task};
use entity_client::{Entity, Error, ValidationError};
use entity_tests::harness::{table, TestTable};
use entity_tests::{Employee, Status, Task};
use futures::TryStreamExt;
use std::collections::BTreeMap;

fn employee(i: usize) -> Employee {
    Employee {
        employee_id: format!("emp-{i:03}"),
        tenant_id: format!("tenant-{}", i % 3),
        department: "engineering".into(),
        hire_date: format!("2024-01-{:02}", i % 28 + 1),
        email: format!("e{i}@example.test"),
        name: format!("Employee {i}"),
    }
}

/// 90 tasks (11 of them ~100 KB, so the table is well over 1 MB), 20
/// employees, and an item of no entity.
async fn mixed_table() -> (TestTable, Vec<Task>, Vec<Employee>) {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let statuses = [Status::Open, Status::InProgress, Status::Done];
    let tasks: Vec<Task> = (0..90)
        .map(|i| {
            let mut t = task(
                &format!("t{i:03}"),
                &format!("p{}", i % 4),
                "e",
                (i % 10) as u8,
                statuses[i % 3],
            );
            if i % 8 == 5 {
                t.title = "x".repeat(100 * 1024);
            }
            t
        })
        .collect();
    let employees: Vec<Employee> = (0..20).map(employee).collect();
    for chunk in tasks.chunks(10) {
        t.client.batch_write().put_all(chunk).await.unwrap();
    }
    t.client.batch_write().put_all(&employees).await.unwrap();
    put_raw(
        &t.client,
        [
            ("pk".to_owned(), s("foreign")),
            ("sk".to_owned(), s("foreign")),
            ("data".to_owned(), s("not an entity")),
        ]
        .into(),
    )
    .await;
    (t, tasks, employees)
}

fn by_id(tasks: Vec<Task>) -> BTreeMap<String, Task> {
    let mut out = BTreeMap::new();
    for task in tasks {
        let id = task.task_id.clone();
        assert!(out.insert(id.clone(), task).is_none(), "{id} read twice");
    }
    out
}

#[tokio::test]
async fn scan_reads_every_item_of_the_entity_and_nothing_else() {
    let (t, tasks, employees) = mixed_table().await;
    let c = &t.client;
    let got = by_id(c.scan::<Task>().all().await.unwrap());
    assert_eq!(got, by_id(tasks));
    let mut staff = c.scan::<Employee>().all().await.unwrap();
    staff.sort_by(|a, b| a.employee_id.cmp(&b.employee_id));
    assert_eq!(staff, employees);
    // Consistent, and through the stream.
    let streamed: Vec<Employee> = c
        .scan::<Employee>()
        .consistent_read(true)
        .page_size(3)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len(), 20);
}

#[tokio::test]
async fn scan_filters() {
    let (t, tasks, _) = mixed_table().await;
    let c = &t.client;
    let f = Task::fields();
    let got = by_id(
        c.scan::<Task>()
            .filter(f.priority.gte(7u8))
            .filter(f.status.ne(Status::Done))
            .all()
            .await
            .unwrap(),
    );
    let want = by_id(
        tasks
            .into_iter()
            .filter(|t| t.priority >= 7 && t.status != Status::Done)
            .collect(),
    );
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let none = c
        .scan::<Task>()
        .filter(f.project_id.eq("no such project"))
        .all()
        .await
        .unwrap();
    assert!(none.is_empty());
}

#[tokio::test]
async fn parallel_segments_return_each_item_exactly_once() {
    let (t, tasks, employees) = mixed_table().await;
    let c = &t.client;
    let want = by_id(tasks.clone());
    for segments in [1, 2, 4, 7] {
        // `by_id` fails on an item read twice.
        let got = by_id(c.scan::<Task>().segments(segments).all().await.unwrap());
        assert_eq!(got, want, "{segments} segments");
        let got = by_id(
            c.scan::<Task>()
                .segments(segments)
                .page_size(5)
                .items()
                .try_collect()
                .await
                .unwrap(),
        );
        assert_eq!(got, want, "{segments} segments of pages of 5");
    }
    // Zero segments means one.
    assert_eq!(
        by_id(c.scan::<Task>().segments(0).all().await.unwrap()),
        want
    );
    let staff = c.scan::<Employee>().segments(4).all().await.unwrap();
    assert_eq!(staff.len(), employees.len());
    // With a filter, in parallel.
    let f = Task::fields();
    let got = by_id(
        c.scan::<Task>()
            .segments(4)
            .filter(f.project_id.eq("p2"))
            .all()
            .await
            .unwrap(),
    );
    assert_eq!(
        got,
        by_id(tasks.into_iter().filter(|t| t.project_id == "p2").collect())
    );
}

#[tokio::test]
async fn an_empty_table_scans_to_nothing() {
    let t = table(&[Task::MODEL]).await;
    assert!(t.client.scan::<Task>().all().await.unwrap().is_empty());
    assert!(t
        .client
        .scan::<Task>()
        .segments(3)
        .all()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn an_unstorable_filter_value_is_refused_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let f = Task::fields();
    let err = t
        .client
        .scan::<Task>()
        .filter(f.estimate.gt(f64::NAN))
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::Value { .. })),
        "{err:?}"
    );
    let err = t
        .client
        .query(Task::by_project("p"))
        .filter(f.estimate.gt(f64::NAN))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::Value { .. })),
        "{err:?}"
    );
    // Items of the entity still decode after all that.
    t.client
        .put(&task("t1", "p", "e", 1, Status::Open))
        .await
        .unwrap();
    let got = t.client.scan::<Task>().all().await.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].to_item().unwrap()["pk"], s(&Task::key("t1").pk));
}

#[tokio::test]
async fn scan_pages_resume_with_signed_cursors() {
    let (t, tasks, _) = mixed_table().await;
    let c = &t.client;
    // One page at a time, `.await`ed, resumed with its cursor: every task
    // exactly once.
    let mut got = Vec::new();
    let mut cursor = None::<String>;
    loop {
        let request = c.scan::<Task>().limit(7);
        let request = match cursor {
            Some(cursor) => request.cursor(cursor),
            None => request,
        };
        let page = request.await.unwrap();
        assert!(page.items.len() <= 7);
        got.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(by_id(got), by_id(tasks.clone()));
    // The page stream reads the same items.
    let pages: Vec<_> = c
        .scan::<Task>()
        .page_size(10)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert!(pages.len() > 1);
    let items = pages.into_iter().flat_map(|p| p.items).collect();
    assert_eq!(by_id(items), by_id(tasks));
}

#[tokio::test]
async fn scan_cursors_belong_to_their_scan() {
    let (t, _, _) = mixed_table().await;
    let c = &t.client;
    let f = Task::fields();
    let page = c.scan::<Task>().limit(5).await.unwrap();
    let cursor = page.cursor.expect("more follow");
    let invalid = |result: Result<Vec<Task>, Error>| match result {
        Err(Error::InvalidCursor { .. }) => {}
        other => panic!("expected InvalidCursor, got {other:?}"),
    };
    // Another filter, another entity, an altered cursor.
    invalid(
        c.scan::<Task>()
            .filter(f.priority.gt(3u8))
            .cursor(cursor.clone())
            .all()
            .await,
    );
    let other = c.scan::<Employee>().cursor(cursor.clone()).all().await;
    assert!(
        matches!(other, Err(Error::InvalidCursor { .. })),
        "{other:?}"
    );
    let mut altered = cursor.clone().into_bytes();
    altered[4] = if altered[4] == b'A' { b'B' } else { b'A' };
    invalid(
        c.scan::<Task>()
            .cursor(String::from_utf8(altered).unwrap())
            .all()
            .await,
    );
    // A query's cursor is not a scan's.
    let query = c.query(Task::by_project("p1").limit(2)).await.unwrap();
    invalid(
        c.scan::<Task>()
            .cursor(query.cursor.expect("more follow"))
            .all()
            .await,
    );
    // The cursor itself resumes.
    assert!(c.scan::<Task>().cursor(cursor).all().await.is_ok());
}

#[tokio::test]
async fn a_parallel_scan_is_bounded_and_has_no_single_cursor() {
    let (t, tasks, _) = mixed_table().await;
    let c = &t.client;
    let err = c
        .scan::<Task>()
        .segments(1_000_001)
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Validation(ValidationError::OutOfRange {
                what: "segments",
                value: 1_000_001,
                max: 1_000_000
            })
        ),
        "{err:?}"
    );
    let err = c.scan::<Task>().segments(4).await.unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::InvalidRequest(_))),
        "{err:?}"
    );
    // Many segments, built as they start: still each item exactly once.
    let got = by_id(c.scan::<Task>().segments(64).all().await.unwrap());
    assert_eq!(got, by_id(tasks));
    // A limit caps the merged stream.
    let some = c.scan::<Task>().segments(4).limit(10).all().await.unwrap();
    assert_eq!(some.len(), 10);
}
