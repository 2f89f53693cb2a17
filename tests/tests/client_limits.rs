//! DynamoDB's limits are checked before sending on every request, reads
//! included: each is a typed `Error::Validation`, never a round trip.

mod common;

use common::task;
use entity_client::{Entity, Error, Query, ValidationError};
use entity_tests::harness::table;
use entity_tests::{Employee, Status, Task};

fn validation(result: Result<impl std::fmt::Debug, Error>) -> ValidationError {
    match result {
        Err(Error::Validation(v)) => v,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_query_key_over_its_limit_or_empty_is_refused() {
    let t = table(&[Task::MODEL, Employee::MODEL]).await;
    let c = &t.client;
    let long = "p".repeat(2100);
    let v = validation(c.query(Task::by_project(long.as_str())).all().await);
    assert!(
        matches!(&v, ValidationError::KeyTooLong { attribute, kind: "partition", .. } if attribute == "gsi1pk"),
        "{v:?}"
    );
    let empty: Query<Task> = Query::new(None, "pk", String::new());
    let v = validation(c.query(empty).all().await);
    assert!(
        matches!(&v, ValidationError::EmptyKey { attribute } if attribute == "pk"),
        "{v:?}"
    );
    let department = "d".repeat(1100);
    let v = validation(
        c.query(
            Employee::by_tenant("t1")
                .department()
                .eq(department.as_str()),
        )
        .all()
        .await,
    );
    assert!(
        matches!(&v, ValidationError::KeyTooLong { attribute, kind: "sort", .. } if attribute == "gsi1sk"),
        "{v:?}"
    );
    // One item, on the read side too.
    let v = validation(c.get(Task::key(long.as_str())).await);
    assert!(matches!(v, ValidationError::KeyTooLong { .. }), "{v:?}");
}

#[tokio::test]
async fn a_table_name_dynamodb_refuses_is_refused_on_every_request() {
    let t = table(&[Task::MODEL]).await;
    let long = "t".repeat(256);
    for name in ["ab", "bad name", "tasks/2024", long.as_str()] {
        let c = t.client.with_table(name);
        let bad = |v: &ValidationError| matches!(v, ValidationError::InvalidTableName { name: n, .. } if n == name);
        let one = task("t1", "p1", "e1", 1, Status::Open);
        assert!(bad(&validation(c.get(Task::key("t1")).await)), "{name}");
        assert!(bad(&validation(c.put(&one).await)), "{name}");
        assert!(
            bad(&validation(c.query(Task::by_project("p1")).all().await)),
            "{name}"
        );
        assert!(bad(&validation(c.scan::<Task>().all().await)), "{name}");
        assert!(bad(&validation(c.batch_write().put(&one).await)), "{name}");
        assert!(
            bad(&validation(c.batch_get([Task::key("t1")]).await)),
            "{name}"
        );
        assert!(
            bad(&validation(c.transact_write().put(&one).await)),
            "{name}"
        );
        assert!(
            bad(&validation(c.create_table(&[Task::MODEL]).await)),
            "{name}"
        );
    }
    // Dots, dashes and underscores are fine, at 3 to 255 characters: the
    // request is sent, to a table that does not exist.
    let ok = t.client.with_table("a.b-c_d");
    let err = ok.get(Task::key("t1")).await.unwrap_err();
    assert!(
        matches!(&err, Error::TableNotFound { table, .. } if table == "a.b-c_d"),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_idempotency_token_over_36_characters_is_refused() {
    let t = table(&[Task::MODEL]).await;
    let one = task("t1", "p1", "e1", 1, Status::Open);
    let v = validation(
        t.client
            .transact_write()
            .put(&one)
            .idempotency_token("x".repeat(37))
            .await,
    );
    assert_eq!(
        v,
        ValidationError::InvalidIdempotencyToken {
            length: 37,
            limit: 36
        }
    );
    t.client
        .transact_write()
        .put(&one)
        .idempotency_token("x".repeat(36))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_transaction_naming_an_item_twice_is_refused() {
    let t = table(&[Task::MODEL]).await;
    let one = task("t1", "p1", "e1", 1, Status::Open);
    let f = Task::fields();
    // A put and a condition check of the same item.
    let v = validation(
        t.client
            .transact_write()
            .put(&one)
            .condition_check(Task::key("t1"), f.title.exists())
            .await,
    );
    assert!(
        matches!(&v, ValidationError::DuplicateKey { operation: "transaction", key } if key.contains("t1")),
        "{v:?}"
    );
    let v = validation(
        t.client
            .transact_get()
            .get(Task::key("t1"))
            .get(Task::key("t1"))
            .await,
    );
    assert!(matches!(v, ValidationError::DuplicateKey { .. }), "{v:?}");
}
