//! The engine probe: `client.probe()` finds what the engine does by
//! harmless calls (a scratch item it deletes, one transaction sent twice
//! with one token), and a client holding what it found refuses
//! exactly-once writes the engine cannot keep.
//!
//! Run on the embedded server, on DynamoDB Local (`ENTITY_TEST_ENDPOINT`),
//! and, for the engine that ignores client request tokens, on the moto
//! server: `bash .ci/moto.sh run cargo test -p entity-tests --test
//! engine_probe -- --ignored` (the script installs and starts it, and sets
//! `ENTITY_MOTO_ENDPOINT`).

use entity_client::{Client, Engine, Entity, Error, Outcome};
use entity_tests::harness::table;
use entity_tests::Order;

fn order(id: &str) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents: 100,
    }
}

fn outcome<'p>(probe: &'p entity_client::Probe, capability: &str) -> &'p Outcome {
    &probe
        .checks
        .iter()
        .find(|c| c.capability == capability)
        .unwrap_or_else(|| panic!("no {capability} check in {probe:?}"))
        .outcome
}

async fn items(client: &Client) -> usize {
    client
        .sdk()
        .scan()
        .table_name(client.table())
        .send()
        .await
        .unwrap()
        .count() as usize
}

#[tokio::test]
async fn the_test_engine_keeps_exactly_once_and_the_probe_leaves_nothing() {
    let t = table(&[Order::MODEL]).await;
    t.client.put(&order("o1")).await.unwrap();

    let probe = t.client.probe().await.unwrap();

    assert_eq!(
        outcome(&probe, "transactions"),
        &Outcome::Supported,
        "{probe}"
    );
    assert_eq!(
        outcome(&probe, "client request tokens"),
        &Outcome::Supported,
        "{probe}"
    );
    assert_eq!(outcome(&probe, "ttl"), &Outcome::Supported, "{probe}");
    assert!(
        matches!(outcome(&probe, "multi-attribute keys"), Outcome::Unknown(_)),
        "a table without a multi-attribute index says nothing of them: {probe}"
    );
    assert!(probe.capabilities.exactly_once());
    assert_eq!(
        items(&t.client).await,
        1,
        "the scratch item is gone, the order stays"
    );

    let client = t.client.with_capabilities(probe.capabilities);
    client.create(&order("o2")).await.unwrap();
    assert_eq!(items(&client).await, 2);
}

#[tokio::test]
async fn the_probe_overrides_a_wrong_declaration() {
    let t = table(&[Order::MODEL]).await;
    // Declared as an engine that ignores tokens, found to honour them.
    let declared = t.client.with_engine(Engine::Moto);
    assert!(!declared.capabilities().exactly_once());

    let probe = declared.probe().await.unwrap();

    assert!(probe.capabilities.client_request_tokens, "{probe}");
    declared
        .with_capabilities(probe.capabilities)
        .create(&order("o1"))
        .await
        .unwrap();
}

#[tokio::test]
async fn on_a_table_that_is_not_there_the_probe_says_so() {
    let t = table(&[Order::MODEL]).await;
    let missing = t.client.with_table("no_such_table");

    let err = missing.probe().await.unwrap_err();

    assert!(matches!(err, Error::TableNotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn a_client_that_holds_tokens_ignored_refuses_exactly_once_writes() {
    let t = table(&[Order::MODEL]).await;
    let client = t.client.with_engine(Engine::Moto);

    let err = client.create(&order("o1")).await.unwrap_err();
    match &err {
        Error::Unsupported { feature, .. } => assert_eq!(*feature, "exactly-once writes"),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    let err = client
        .transact_write()
        .create(&order("o1"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    let err = client
        .put(&order("o1"))
        .idempotency_token("t-1")
        .await
        .unwrap_err();
    match &err {
        Error::Unsupported { feature, .. } => assert_eq!(*feature, "idempotency tokens"),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    assert_eq!(items(&client).await, 0, "nothing was written");

    // Idempotent writes need no token; accepting at-least-once sends the rest.
    client.put(&order("o1")).await.unwrap();
    let client = client.with_exactly_once(false);
    client.create(&order("o2")).await.unwrap();
    assert_eq!(items(&client).await, 2);
}

/// The moto server accepts client request tokens and ignores them: the
/// probe finds it, and a client holding what it found refuses a create
/// until exactly-once is turned off.
#[tokio::test]
#[ignore = "needs the moto server: bash .ci/moto.sh run cargo test -p entity-tests --test engine_probe -- --ignored"]
async fn on_moto_tokens_are_found_ignored() {
    let endpoint = std::env::var("ENTITY_MOTO_ENDPOINT")
        .expect("ENTITY_MOTO_ENDPOINT names the moto server (bash .ci/moto.sh run ...)");
    let client = Client::local(&endpoint, entity_tests::harness::table_name("probe"));
    client.create_table(&[Order::MODEL]).await.unwrap();

    let probe = client.probe().await.unwrap();

    assert_eq!(
        outcome(&probe, "transactions"),
        &Outcome::Supported,
        "{probe}"
    );
    assert!(
        matches!(
            outcome(&probe, "client request tokens"),
            Outcome::Missing(_)
        ),
        "{probe}"
    );
    assert!(!probe.capabilities.exactly_once());
    assert_eq!(items(&client).await, 0, "the scratch item is gone");

    let client = client.with_capabilities(probe.capabilities);
    let err = client.create(&order("o1")).await.unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    let client = client.with_exactly_once(false);
    client.create(&order("o1")).await.unwrap();
    assert_eq!(items(&client).await, 1);
}

#[tokio::test]
async fn warm_opens_the_connection_and_says_when_there_is_no_server() {
    let t = table(&[Order::MODEL]).await;
    t.client.warm().await.unwrap();
    t.client.put(&order("o1")).await.unwrap();

    // A port nothing listens on: no answer came, which is an error.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let nowhere = Client::local(&format!("http://127.0.0.1:{port}"), "t");
    let err = nowhere.warm().await.unwrap_err();
    assert!(!matches!(err, Error::Unsupported { .. }), "{err:?}");
}
