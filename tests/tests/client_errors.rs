//! Error paths against a server: DynamoDB's limits checked before sending
//! (item size, key lengths, empty keys), values that cannot be stored, and
//! stored items that cannot be read as the entity, through every read path,
//! as typed errors naming entity and attribute, never panics.

mod common;

use common::{n, put_raw, s, scan_raw, stored, task};
use entity_client::expr::Update;
use entity_client::limits::{item_total, MAX_ITEM_BYTES};
use entity_client::{
    AttributeError, Client, DecodeError, Entity, Error, PrimaryKey, ValidationError,
};
use entity_tests::harness::table;
use entity_tests::{Employee, Order, Status, Task, UserId, UserProfile};
use futures::{StreamExt, TryStreamExt};

/// Keys that are exactly their composite's value.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "{id}")]
#[sk(format = "{part}")]
struct Bare {
    id: String,
    part: String,
    body: String,
}

fn bare(id: &str, part: &str) -> Bare {
    Bare {
        id: id.into(),
        part: part.into(),
        body: "b".into(),
    }
}

/// Every way to send a key: each must refuse it with `expected`, before
/// sending, and write nothing.
async fn refused_everywhere<
    E: Entity
        + entity_client::NotTenant
        + entity_client::WithoutUnique
        + entity_client::WithoutVersion
        + entity_client::WithoutSoftDelete
        + Clone
        + Send
        + Sync
        + 'static,
>(
    client: &Client,
    entity: &E,
    key: PrimaryKey<E>,
    expected: impl Fn(&ValidationError) -> bool,
) {
    let check = |result: Result<(), Error>, what: &str| match result {
        Err(Error::Validation(v)) if expected(&v) => {}
        other => panic!("{what}: unexpected {other:?}"),
    };
    check(client.put(entity).await.map(drop), "put");
    check(client.create(entity).await.map(drop), "create");
    check(client.upsert(entity).await.map(drop), "upsert");
    check(client.transact_write().put(entity).await, "transact put");
    check(
        client.batch_write().put(entity).await.map(drop),
        "batch put",
    );
    check(client.get(key.clone()).await.map(drop), "get");
    check(
        client.get(key.clone()).project(["pk"]).await.map(drop),
        "projected get",
    );
    check(client.delete(key.clone()).await, "delete");
    check(client.remove(key.clone()).await, "remove");
    check(client.batch_get([key.clone()]).await.map(drop), "batch get");
    check(
        client.batch_write().delete(key.clone()).await.map(drop),
        "batch delete",
    );
    check(
        client.transact_get().get(key.clone()).await.map(drop),
        "transact get",
    );
    check(
        client.transact_write().delete(key.clone(), None).await,
        "transact delete",
    );
    assert!(scan_raw(client).await.is_empty(), "nothing was written");
}

#[tokio::test]
async fn an_item_over_400_kb_is_refused_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let mut big = task("big", "p", "e", 1, Status::Open);
    big.title = "x".repeat(MAX_ITEM_BYTES);
    let too_large = |v: &ValidationError| {
        matches!(v, ValidationError::ItemTooLarge { entity: "Task", size, limit, .. }
            if *size > MAX_ITEM_BYTES && *limit == MAX_ITEM_BYTES)
    };
    for result in [
        c.put(&big).await.map(drop),
        c.create(&big).await.map(drop),
        c.upsert(&big).await.map(drop),
        c.transact_write().put(&big).await,
        c.transact_write().create(&big).await,
        c.batch_write().put(&big).await.map(drop),
    ] {
        match result {
            Err(Error::Validation(v)) if too_large(&v) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(scan_raw(c).await.is_empty());

    // The client counts sizes as DynamoDB does (numbers included: a
    // negative fraction here): exactly at the limit, the server stores the
    // item; one byte over, the client refuses it.
    let mut item = big.clone();
    item.estimate = Some(-1234.5);
    item.title.clear();
    let rest = item_total(&item.to_item().unwrap());
    item.title = "y".repeat(MAX_ITEM_BYTES - rest + 1);
    match c.put(&item).await {
        Err(Error::Validation(ValidationError::ItemTooLarge { size, .. })) => {
            assert_eq!(size, MAX_ITEM_BYTES + 1)
        }
        other => panic!("unexpected {other:?}"),
    }
    item.title.pop();
    assert_eq!(item_total(&item.to_item().unwrap()), MAX_ITEM_BYTES);
    c.put(&item).await.unwrap();
    assert_eq!(c.get(Task::key("big")).await.unwrap(), Some(item));
}

#[tokio::test]
async fn a_partition_key_over_2048_bytes_is_refused_before_sending() {
    let t = table(&[Bare::MODEL]).await;
    let c = &t.client;
    // Bytes, not characters: 1025 two-byte characters.
    let long = "é".repeat(1025);
    let entity = bare(&long, "s");
    refused_everywhere(c, &entity, Bare::key(long.as_str(), "s"), |v| {
        matches!(v, ValidationError::KeyTooLong { attribute, kind: "partition", length: 2050, limit: 2048 }
            if attribute == "pk")
    })
    .await;
    // At the limit it is stored.
    let at_limit = "é".repeat(1024);
    c.put(&bare(&at_limit, "s")).await.unwrap();
    assert_eq!(
        c.get(Bare::key(at_limit.as_str(), "s")).await.unwrap(),
        Some(bare(&at_limit, "s"))
    );
}

#[tokio::test]
async fn a_sort_key_over_1024_bytes_is_refused_before_sending() {
    let t = table(&[Bare::MODEL, Order::MODEL]).await;
    let c = &t.client;
    let long = "s".repeat(1025);
    let entity = bare("id", &long);
    refused_everywhere(c, &entity, Bare::key("id", long.as_str()), |v| {
        matches!(v, ValidationError::KeyTooLong { attribute, kind: "sort", length: 1025, limit: 1024 }
            if attribute == "sk")
    })
    .await;
    let at_limit = "s".repeat(1024);
    c.put(&bare("id", &at_limit)).await.unwrap();
    assert!(c
        .get(Bare::key("id", at_limit.as_str()))
        .await
        .unwrap()
        .is_some());
    // Composed keys count their whole text.
    let order = Order {
        user_id: "u".into(),
        day: "2024-01-01".into(),
        order_id: "o".repeat(1010),
        total_cents: 1,
    };
    let err = c.put(&order).await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation(ValidationError::KeyTooLong { attribute, kind: "sort", .. }) if attribute == "sk"),
        "{err:?}"
    );
}

#[tokio::test]
async fn index_keys_are_checked_too() {
    let t = table(&[Employee::MODEL, UserProfile::MODEL]).await;
    let c = &t.client;
    let employee = Employee {
        employee_id: "e1".into(),
        tenant_id: "t".into(),
        department: "d".repeat(1100),
        hire_date: "2024-01-01".into(),
        email: "e1@x.test".into(),
        name: "E".into(),
    };
    let err = c.put(&employee).await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation(ValidationError::KeyTooLong { attribute, kind: "sort", .. }) if attribute == "gsi1sk"),
        "{err:?}"
    );
    let mut employee = employee;
    employee.department = "d".into();
    employee.email = "e".repeat(2100);
    let err = c.put(&employee).await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation(ValidationError::KeyTooLong { attribute, kind: "partition", .. }) if attribute == "gsi3pk"),
        "{err:?}"
    );
    // An index key made of one empty value.
    let profile = UserProfile {
        user_id: UserId("1".into()),
        email: String::new(),
        bio: None,
    };
    let err = c.upsert(&profile).await.unwrap_err();
    assert!(
        matches!(&err, Error::Validation(ValidationError::EmptyKey { attribute }) if attribute == "gsi1sk"),
        "{err:?}"
    );
    assert!(scan_raw(c).await.is_empty());
}

#[tokio::test]
async fn an_empty_key_is_refused_before_sending() {
    let t = table(&[Bare::MODEL]).await;
    let c = &t.client;
    refused_everywhere(
        c,
        &bare("", "s"),
        Bare::key("", "s"),
        |v| matches!(v, ValidationError::EmptyKey { attribute } if attribute == "pk"),
    )
    .await;
    refused_everywhere(
        c,
        &bare("id", ""),
        Bare::key("id", ""),
        |v| matches!(v, ValidationError::EmptyKey { attribute } if attribute == "sk"),
    )
    .await;
    let f = Bare::fields();
    let err = c
        .patch(Bare::key("", "s"))
        .set(f.body, "x")
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::EmptyKey { .. })),
        "{err:?}"
    );
    let err = c
        .transact_write()
        .update(Bare::key("id", ""), Update::new().set(f.body, "x"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::EmptyKey { .. })),
        "{err:?}"
    );
    let err = c
        .transact_write()
        .condition_check(Bare::key("", "s"), f.body.exists())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::EmptyKey { .. })),
        "{err:?}"
    );
}

#[tokio::test]
async fn values_that_cannot_be_stored_are_refused_before_sending() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let mut nan = task("t1", "p", "e", 1, Status::Open);
    nan.estimate = Some(f64::NAN);
    let encode = |result: Result<(), Error>| match result {
        Err(Error::Encode(e)) => assert_eq!((e.entity, e.attribute), ("Task", "estimate")),
        other => panic!("expected an encode error, got {other:?}"),
    };
    encode(c.put(&nan).await.map(drop));
    encode(c.create(&nan).await.map(drop));
    encode(c.upsert(&nan).await.map(drop));
    encode(c.transact_write().put(&nan).await);
    encode(c.batch_write().put(&nan).await.map(drop));
    let f = Task::fields();
    let err = c
        .transact_write()
        .update(
            Task::key("t1"),
            Update::new().set(f.estimate, f64::INFINITY),
            None,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::Value { .. })),
        "{err:?}"
    );
    let err = c
        .put(&task("t1", "p", "e", 1, Status::Open))
        .condition(f.estimate.eq(f64::NAN))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Validation(ValidationError::Value { .. })),
        "{err:?}"
    );
    assert!(scan_raw(c).await.is_empty());
}

/// A task item, written raw, with `priority` stored as a string.
async fn malformed(client: &Client, id: &str) {
    let mut item = task(id, "p1", "e1", 3, Status::Open).to_item().unwrap();
    item.insert("priority".into(), s("high"));
    put_raw(client, item).await;
}

fn is_bad_priority(err: &Error) -> bool {
    matches!(
        err,
        Error::Decode(DecodeError::Attribute {
            entity: "Task",
            attribute: "priority",
            source: AttributeError::WrongType {
                expected: "N",
                found: "S"
            }
        })
    )
}

#[tokio::test]
async fn a_mistyped_stored_item_is_a_decode_error_on_every_read() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    malformed(c, "bad").await;
    c.put(&task("good", "p1", "e1", 1, Status::Open))
        .await
        .unwrap();

    let err = c.get(Task::key("bad")).await.unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    assert_eq!(
        err.to_string(),
        "Task.priority: expected DynamoDB type N, found S"
    );
    let err = c
        .get(Task::key("bad"))
        .consistent_read(true)
        .await
        .unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    // A projection reads only what it asks for.
    let f = Task::fields();
    let projection = c
        .get(Task::key("bad"))
        .project([f.title.name(), f.priority.name()])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(projection.get(f.title).unwrap(), "title of bad");
    let err = projection.get(f.priority).unwrap_err();
    assert_eq!((err.entity(), err.attribute()), ("Task", "priority"));

    // (Once the global index shows both items.)
    common::eventually(2, || async {
        let out = c
            .sdk()
            .query()
            .table_name(c.table())
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :pk")
            .expression_attribute_values(":pk", s(&Task::by_project_pk_of("p1")))
            .send()
            .await
            .unwrap();
        out.count()
    })
    .await;
    let err = c.query(Task::by_project("p1")).all().await.unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    let err = c.query(Task::by_project("p1")).await.unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    // The stream yields the error as an item, and no panic.
    let results: Vec<Result<Task, Error>> = c.query(Task::by_project("p1")).items().collect().await;
    assert!(results
        .iter()
        .any(|r| r.as_ref().is_err_and(is_bad_priority)));
    let err = c.scan::<Task>().all().await.unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    let err = c
        .scan::<Task>()
        .segments(3)
        .items()
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    // A batch get reports the unreadable item and keeps the readable one.
    let out = c
        .batch_get([Task::key("good"), Task::key("bad")])
        .await
        .unwrap();
    assert_eq!(out.items.len(), 1);
    assert!(
        out.errors.len() == 1 && is_bad_priority(&out.errors[0]),
        "{:?}",
        out.errors
    );
    let out = c.transact_get().get(Task::key("bad")).await.unwrap();
    let err = out.entity::<Task>(0).unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");

    // Writes that return the old item: the write happened, the old item
    // could not be read.
    let err = c
        .put(&task("bad", "p1", "e1", 3, Status::Open))
        .return_old()
        .await
        .unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    assert_eq!(
        stored(c, &Task::key("bad")).await.unwrap()["priority"],
        n("3")
    );
    malformed(c, "bad").await;
    let err = c
        .patch(Task::key("bad"))
        .set(f.title, "x")
        .return_new()
        .await
        .unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    let err = c.delete(Task::key("bad")).return_old().await.unwrap_err();
    assert!(is_bad_priority(&err), "{err:?}");
    assert_eq!(stored(c, &Task::key("bad")).await, None);
}

/// Makes a stored item unreadable.
type Spoil = fn(&mut entity_client::Item);

#[tokio::test]
async fn other_unreadable_items_name_entity_and_attribute() {
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let good = task("t", "p1", "e1", 3, Status::Open).to_item().unwrap();
    let cases: [(&str, Spoil); 6] = [
        ("title", |i| {
            i.remove("title");
        }),
        ("priority", |i| {
            i.insert("priority".into(), n("300"));
        }),
        ("status", |i| {
            i.insert("status".into(), s("Closed"));
        }),
        ("checklist", |i| {
            i.insert("checklist".into(), s("no"));
        }),
        ("tags", |i| {
            i.insert("tags".into(), n("1"));
        }),
        ("__entity", |i| {
            i.remove("__entity");
        }),
    ];
    for (attribute, spoil) in cases {
        let mut item = good.clone();
        spoil(&mut item);
        put_raw(c, item).await;
        let err = c.get(Task::key("t")).await.unwrap_err();
        let Error::Decode(decode) = &err else {
            panic!("{attribute}: expected a decode error, got {err:?}")
        };
        assert_eq!(
            (decode.entity(), decode.attribute()),
            ("Task", attribute),
            "{err}"
        );
        assert!(err.to_string().contains(attribute), "{err}");
    }
}
