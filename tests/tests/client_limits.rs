//! DynamoDB's limits are checked before sending on every request, reads
//! included: each is a typed `Error::Validation`, never a round trip.

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::task;
use entity_client::{
    DecodeError, EncodeError, Entity, EntityModel, Error, Item, ItemWriter, NotTenant, PrimaryKey,
    Query, ValidationError, WithoutUnique, WithoutVersion,
};
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

/// A hand-written `Entity`: a task's item, written by the derived
/// `write_item`, then its project index key blanked by hand.
#[derive(Debug)]
struct Blanked(Task);

impl Entity for Blanked {
    const MODEL: &'static EntityModel = Task::MODEL;

    fn write_item(&self, item: &mut ItemWriter) -> Result<(), EncodeError> {
        self.0.write_item(item)?;
        item.put("gsi1pk", AttributeValue::S(String::new()));
        Ok(())
    }

    fn from_item(item: Item) -> Result<Self, DecodeError> {
        Task::from_item(item).map(Blanked)
    }

    fn primary_key(&self) -> PrimaryKey<Self> {
        let key = self.0.primary_key();
        PrimaryKey::new(key.pk_attribute, key.pk, key.sk)
    }

    fn key_fields(_: &PrimaryKey<Self>) -> Item {
        Item::new()
    }
}

impl NotTenant for Blanked {}
impl WithoutUnique for Blanked {}
impl WithoutVersion for Blanked {}

#[tokio::test]
async fn a_hand_written_item_is_checked_as_it_is_stored() {
    let t = table(&[Task::MODEL]).await;
    let one = Blanked(task("t1", "p1", "e1", 1, Status::Open));
    let blank = |v: &ValidationError| matches!(v, ValidationError::EmptyKey { attribute } if attribute == "gsi1pk");
    // A batch checks what the hand-written `write_item` wrote last, not
    // what the derived one noted on the way.
    let v = validation(t.client.batch_write().put(&one).await);
    assert!(blank(&v), "{v:?}");
    let v = validation(t.client.put(&one).await);
    assert!(blank(&v), "{v:?}");
    // Nothing was written.
    assert_eq!(t.client.get(Task::key("t1")).await.unwrap(), None);
}
