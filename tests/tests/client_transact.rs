//! Transactions against a server: writes of every kind across two entities,
//! all or nothing; cancellation reasons per item; limits checked before
//! sending; idempotency tokens; and read transactions.

mod common;

use common::{scan_raw, stored, stored_entity, task};
use entity_client::expr::Update;
use entity_client::{Entity, Error, ValidationError};
use entity_tests::harness::table;
use entity_tests::{Employee, Status, Task};

fn employee(id: &str) -> Employee {
    Employee {
        employee_id: id.into(),
        tenant_id: "acme".into(),
        department: "ops".into(),
        hire_date: "2024-02-01".into(),
        email: format!("{id}@acme.test"),
        name: format!("Employee {id}"),
    }
}

#[tokio::test]
async fn every_kind_of_write_across_two_entities() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let f = Task::fields();
    let fe = Employee::fields();
    c.put(&task("keep", "p1", "e1", 1, Status::Open))
        .await
        .unwrap();
    c.put(&task("change", "p1", "e1", 2, Status::Open))
        .await
        .unwrap();
    c.put(&employee("leaving")).await.unwrap();
    c.put(&employee("checked")).await.unwrap();

    let new_task = task("new", "p2", "e2", 5, Status::InProgress);
    let new_employee = employee("joining");
    let mut replaced = task("keep", "p1", "e1", 1, Status::Open);
    replaced.title = "replaced in a transaction".into();
    c.transact_write()
        .create(&new_task)
        .create(&new_employee)
        .put_if(&replaced, f.status.eq(Status::Open))
        .update(
            Task::key("change"),
            Update::new()
                .set(f.title, "updated")
                .apply(Task::set_priority_status(8, Status::Done)),
            Some(f.priority.eq(2u8)),
        )
        .delete(Employee::key("leaving"), Some(fe.department.eq("ops")))
        .condition_check(Employee::key("checked"), fe.name.begins_with("Employee"))
        .await
        .unwrap();

    assert_eq!(stored_entity(c, &Task::key("new")).await, Some(new_task));
    assert_eq!(
        stored_entity(c, &Employee::key("joining")).await,
        Some(new_employee)
    );
    assert_eq!(stored_entity(c, &Task::key("keep")).await, Some(replaced));
    let mut changed = task("change", "p1", "e1", 8, Status::Done);
    changed.title = "updated".into();
    // The group setter recomposed the index keys inside the transaction.
    assert_eq!(
        stored(c, &Task::key("change")).await,
        Some(changed.to_item().unwrap())
    );
    assert_eq!(stored(c, &Employee::key("leaving")).await, None);
    assert_eq!(
        stored_entity(c, &Employee::key("checked")).await,
        Some(employee("checked"))
    );
    common::eventually(vec![changed], || async {
        c.query(Task::by_project("p1").priority().eq(8))
            .all()
            .await
            .unwrap()
    })
    .await;
}

#[tokio::test]
async fn a_canceled_transaction_writes_nothing_and_says_which_item_failed() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let f = Task::fields();
    let existing = employee("exists");
    c.put(&existing).await.unwrap();
    c.put(&task("t1", "p1", "e1", 1, Status::Open))
        .await
        .unwrap();
    let before = scan_raw(c).await;

    // Item 2 (a create of an existing employee) fails.
    let err = c
        .transact_write()
        .create(&task("t2", "p1", "e1", 1, Status::Open))
        .update(Task::key("t1"), Update::new().set(f.title, "changed"), None)
        .create(&existing)
        .delete(Employee::key("nobody"), None)
        .await
        .unwrap_err();
    let Error::TransactionCanceled { reasons, .. } = &err else {
        panic!("expected TransactionCanceled, got {err:?}")
    };
    assert_eq!(reasons.len(), 4);
    let failed: Vec<usize> = reasons
        .iter()
        .filter(|r| r.is_condition_failed())
        .map(|r| r.index)
        .collect();
    assert_eq!(failed, [2]);
    assert_eq!(
        reasons.iter().map(|r| r.index).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    for (i, reason) in reasons.iter().enumerate() {
        if i != 2 {
            assert!(
                matches!(reason.code.as_deref(), None | Some("None")),
                "{reason:?}"
            );
        }
    }
    // The failing item's stored value comes back with its reason.
    let old = reasons[2].item.clone().expect("the existing item");
    assert_eq!(Employee::from_item(old).unwrap(), existing);
    assert!(err.is_condition_failed());
    assert!(err.to_string().contains("item 2"), "{err}");
    assert!(err.old_item().is_none());
    // Nothing was written.
    assert_eq!(scan_raw(c).await.len(), before.len());
    assert_eq!(stored(c, &Task::key("t2")).await, None);
    assert_eq!(
        stored_entity(c, &Task::key("t1")).await.unwrap().title,
        "title of t1"
    );
}

#[tokio::test]
async fn the_same_key_twice_is_refused_before_sending() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let f = Task::fields();
    c.put(&task("t1", "p1", "e1", 1, Status::Open))
        .await
        .unwrap();
    let before = scan_raw(c).await;
    let err = c
        .transact_write()
        .put(&employee("e1"))
        .update(Task::key("t1"), Update::new().set(f.title, "changed"), None)
        .delete(Task::key("t1"), None)
        .await
        .unwrap_err();
    let Error::Validation(ValidationError::DuplicateKey { operation, key }) = &err else {
        panic!("expected DuplicateKey, got {err:?}")
    };
    assert_eq!(*operation, "transaction");
    assert!(key.contains("taskid_t1"), "{key}");
    assert_eq!(scan_raw(c).await, before, "nothing was written");
}

#[tokio::test]
async fn failed_condition_checks_updates_and_deletes_cancel() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let f = Task::fields();
    let fe = Employee::fields();
    c.put(&task("t1", "p1", "e1", 1, Status::Open))
        .await
        .unwrap();
    c.put(&employee("e1")).await.unwrap();
    let before = scan_raw(c).await;

    let failing_at = |err: Error| -> Vec<usize> {
        let Error::TransactionCanceled { reasons, .. } = err else {
            panic!("expected TransactionCanceled, got {err:?}")
        };
        reasons
            .iter()
            .filter(|r| r.is_condition_failed())
            .map(|r| r.index)
            .collect()
    };

    let err = c
        .transact_write()
        .put(&task("t2", "p1", "e1", 1, Status::Open))
        .condition_check(Employee::key("e1"), fe.department.eq("sales"))
        .await
        .unwrap_err();
    assert_eq!(failing_at(err), [1]);

    let err = c
        .transact_write()
        .update(
            Task::key("t1"),
            Update::new().set(f.title, "x"),
            Some(f.status.eq(Status::Done)),
        )
        .put(&task("t2", "p1", "e1", 1, Status::Open))
        .await
        .unwrap_err();
    assert_eq!(failing_at(err), [0]);

    let err = c
        .transact_write()
        .put(&task("t2", "p1", "e1", 1, Status::Open))
        .delete(Employee::key("e1"), Some(fe.name.eq("someone else")))
        .condition_check(Task::key("missing"), f.priority.exists())
        .await
        .unwrap_err();
    assert_eq!(failing_at(err), [1, 2]);

    let err = c
        .transact_write()
        .put_if(&task("t1", "p1", "e1", 9, Status::Open), f.priority.gt(5u8))
        .await
        .unwrap_err();
    assert_eq!(failing_at(err), [0]);

    assert_eq!(scan_raw(c).await, before);
}

#[tokio::test]
async fn more_than_a_hundred_items_are_refused_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let mut tx = c.transact_write();
    for i in 0..101 {
        tx = tx.put(&task(&format!("t{i}"), "p", "e", 1, Status::Open));
    }
    assert_eq!(tx.len(), 101);
    assert!(!tx.is_empty());
    let err = tx.await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Validation(ValidationError::TooManyTransactionItems {
                count: 101,
                limit: 100
            })
        ),
        "{err:?}"
    );
    assert!(scan_raw(c).await.is_empty());

    // Exactly 100 is fine.
    let mut tx = c.transact_write();
    for i in 0..100 {
        tx = tx.put(&task(&format!("t{i}"), "p", "e", 1, Status::Open));
    }
    tx.await.unwrap();
    assert_eq!(scan_raw(c).await.len(), 100);

    let mut get = c.transact_get();
    for i in 0..101 {
        get = get.get(Task::key(format!("t{i}")));
    }
    let err = get.await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Validation(ValidationError::TooManyTransactionItems { count: 101, .. })
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_idempotency_token_writes_once() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let f = Task::fields();
    c.put(&task("t1", "p1", "e1", 1, Status::Open))
        .await
        .unwrap();
    // Tokens are account-wide on a shared server: one per table.
    let token = format!("add-one-{}", c.table());
    let add_one = || {
        c.transact_write()
            .update(Task::key("t1"), Update::new().add(f.estimate, 1.0), None)
            .idempotency_token(token.as_str())
    };
    add_one().await.unwrap();
    add_one().await.unwrap();
    assert_eq!(
        stored_entity(c, &Task::key("t1")).await.unwrap().estimate,
        Some(2.5),
        "1.5 + 1, once"
    );
    // Without a token, each request writes.
    let add = || {
        c.transact_write()
            .update(Task::key("t1"), Update::new().add(f.estimate, 1.0), None)
    };
    add().await.unwrap();
    add().await.unwrap();
    assert_eq!(
        stored_entity(c, &Task::key("t1")).await.unwrap().estimate,
        Some(4.5)
    );
    // The same token with other items is refused, and writes nothing.
    let err = c
        .transact_write()
        .update(Task::key("t1"), Update::new().add(f.estimate, 5.0), None)
        .idempotency_token(token.as_str())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::TokenReused {
                operation: "TransactWriteItems",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        stored_entity(c, &Task::key("t1")).await.unwrap().estimate,
        Some(4.5)
    );
}

#[tokio::test]
async fn transact_get_reads_entities_in_request_order() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let t1 = task("t1", "p1", "e1", 1, Status::Open);
    let ada = employee("ada");
    c.put(&t1).await.unwrap();
    c.put(&ada).await.unwrap();
    let out = c
        .transact_get()
        .get(Task::key("t1"))
        .get(Employee::key("ada"))
        .get(Task::key("missing"))
        .await
        .unwrap();
    assert_eq!(out.entities(), ["Task", "Employee", "Task"]);
    assert_eq!(out.items.len(), 3);
    assert_eq!(out.entity::<Task>(0).unwrap(), Some(t1.clone()));
    assert_eq!(out.entity::<Employee>(1).unwrap(), Some(ada));
    assert_eq!(out.entity::<Task>(2).unwrap(), None);
    assert_eq!(out.entity::<Task>(3).unwrap(), None, "past the end");
    assert_eq!(out.items[0], Some(t1.to_item().unwrap()));
    // Reading an item as the wrong entity is a decode error.
    let err = out.entity::<Employee>(0).unwrap_err();
    assert!(matches!(err, Error::Decode(_)), "{err:?}");
}
