//! The engine profile: a client told it talks to an engine without
//! transactions or multi-attribute keys refuses what needs them before
//! sending, with a typed error, and refuses exactly-once writes it cannot
//! keep until the client accepts single-item calls.

mod common;

use common::requests::recording;
use entity_client::{Client, Engine, Entity, Error};
use entity_tests::harness::table;
use entity_tests::Order;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "eng", unique(email))]
#[pk(id)]
#[sk()]
struct Member {
    id: String,
    email: String,
}

fn order(id: &str) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents: 100,
    }
}

fn unsupported(err: &Error) -> &'static str {
    match err {
        Error::Unsupported {
            engine: Engine::Alternator,
            feature,
            ..
        } => feature,
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[tokio::test]
async fn the_embedded_server_says_it_is_dynoxide() {
    let t = table(&[Order::MODEL]).await;
    if t.server.is_some() {
        assert_eq!(t.client.engine(), Engine::Dynoxide);
    }
    assert!(Engine::DynamoDb.capabilities().transactions);
    assert!(!Engine::Alternator.capabilities().multi_attribute_keys);
}

/// A multi-attribute GSI, which Alternator does not have.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "eng")]
#[pk(order_id)]
#[index(by_region(gsi = "gsi3", multi_attribute, pk(tenant_id, region), sk(status)))]
struct RegionOrder {
    order_id: String,
    tenant_id: String,
    region: String,
    status: String,
}

#[tokio::test]
async fn without_multi_attribute_keys_create_table_is_refused() {
    let t = table(&[Order::MODEL]).await;
    let client = t
        .client
        .with_table(entity_tests::harness::table_name("alt"))
        .with_engine(Engine::Alternator);

    let err = client
        .create_table(&[RegionOrder::MODEL])
        .await
        .unwrap_err();

    assert_eq!(unsupported(&err), "multi-attribute GSI keys");
}

#[tokio::test]
async fn without_transactions_what_needs_one_is_refused_before_sending() {
    let t = table(&[Order::MODEL, Member::MODEL]).await;
    let (client, recorder) = recording(&t.client);
    let client: Client = client.with_engine(Engine::Alternator);

    let err = client
        .transact_write()
        .create(&order("o1"))
        .await
        .unwrap_err();
    assert_eq!(unsupported(&err), "TransactWriteItems");
    let err = client
        .transact_get()
        .get(Order::key("u1", "2024-01-15", "o1"))
        .await
        .unwrap_err();
    assert_eq!(unsupported(&err), "TransactGetItems");
    let member = Member {
        id: "m1".into(),
        email: "ada@example.com".into(),
    };
    let err = client.create(&member).await.unwrap_err();
    assert_eq!(unsupported(&err), "TransactWriteItems");
    let err = client
        .put(&order("o1"))
        .idempotency_token("t-1")
        .await
        .unwrap_err();
    assert_eq!(unsupported(&err), "TransactWriteItems");

    assert!(recorder.sent("TransactWriteItems").is_empty());
    assert!(recorder.sent("TransactGetItems").is_empty());
    assert!(recorder.sent("PutItem").is_empty(), "nothing was sent");
}

#[tokio::test]
async fn without_transactions_exactly_once_is_refused_until_turned_off() {
    let t = table(&[Order::MODEL]).await;
    let (client, recorder) = recording(&t.client);
    let client = client.with_engine(Engine::Alternator);

    let err = client.create(&order("o1")).await.unwrap_err();
    assert_eq!(unsupported(&err), "exactly-once writes");
    assert!(
        err.to_string().contains("with_exactly_once(false)"),
        "{err}"
    );
    let err = client
        .update(Order::key("u1", "2024-01-15", "o1"))
        .add(Order::fields().total_cents, 5i64)
        .await
        .unwrap_err();
    assert_eq!(unsupported(&err), "exactly-once writes");
    assert!(recorder.sent("PutItem").is_empty(), "nothing was sent");
    assert!(recorder.sent("UpdateItem").is_empty(), "nothing was sent");

    // Accepting at-least-once sends single-item calls.
    let client = client.with_exactly_once(false);
    client.create(&order("o1")).await.unwrap();
    client
        .update(Order::key("u1", "2024-01-15", "o1"))
        .add(Order::fields().total_cents, 5i64)
        .await
        .unwrap();
    let err = client.create(&order("o1")).await.unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");

    assert_eq!(recorder.sent("PutItem").len(), 2);
    assert_eq!(recorder.sent("UpdateItem").len(), 1);
    assert!(recorder.sent("TransactWriteItems").is_empty());
    let stored = t
        .client
        .get(Order::key("u1", "2024-01-15", "o1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.total_cents, 105);
}
