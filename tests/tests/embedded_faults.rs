//! Faults on demand, used as an application's tests use them: a server
//! from `EmbeddedDynamo::start_with_faults`, its `Faults`, a client made
//! from it, and assertions on what the application sees and what is
//! stored. One test per kind of fault, plus rates, delays and metering.

use entity_client::faults::{Fault, FaultProxy, Faults, Operation};
use entity_client::{Client, EmbeddedDynamo, Entity, Error};
use std::time::{Duration, Instant};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop")]
#[pk(customer)]
#[sk(id)]
struct Order {
    customer: String,
    id: u32,
    total: i64,
}

fn order(id: u32) -> Order {
    Order {
        customer: "c1".into(),
        id,
        total: i64::from(id) * 100,
    }
}

/// A fresh server with faults, its faults, and a client on a created table.
async fn shop() -> (EmbeddedDynamo, Faults, Client) {
    let (server, faults) = EmbeddedDynamo::start_with_faults().await.unwrap();
    let client = server.client("shop");
    client.create_table(&[Order::MODEL]).await.unwrap();
    (server, faults, client)
}

/// Every order stored, read with no faults scripted for queries.
async fn stored(client: &Client) -> Vec<Order> {
    let mut orders = client
        .query(Order::primary("c1"))
        .consistent_read(true)
        .all()
        .await
        .unwrap();
    orders.sort_by_key(|o| o.id);
    orders
}

#[tokio::test]
async fn throttled_writes_are_retried_until_they_succeed() {
    let (_server, faults, client) = shop().await;
    faults.script(
        Operation::PutItem,
        [Fault::Throttling, Fault::ProvisionedThroughputExceeded],
    );

    client.put(&order(1)).await.unwrap();

    assert_eq!(stored(&client).await, [order(1)]);
    let counts = faults.counts(Operation::PutItem);
    assert_eq!((counts.received, counts.forwarded), (3, 1), "{counts:?}");
}

#[tokio::test]
async fn throttles_past_the_sdk_retries_reach_the_application_as_throttled() {
    let (_server, faults, client) = shop().await;
    faults.script(Operation::PutItem, [Fault::Throttling; 3]); // the SDK's 3 attempts

    let err = client.put(&order(1)).await.unwrap_err();

    assert!(
        matches!(err, Error::Throttled { operation, .. } if operation == "PutItem"),
        "{err:?}"
    );
    assert_eq!(stored(&client).await, []);
    // The script is spent: the application's own retry goes through.
    client.put(&order(1)).await.unwrap();
    assert_eq!(stored(&client).await, [order(1)]);
}

#[tokio::test]
async fn server_errors_and_dropped_connections_before_applying_are_retried() {
    let (_server, faults, client) = shop().await;
    client.put(&order(1)).await.unwrap();
    faults.script(
        Operation::GetItem,
        [Fault::ServerErrorBeforeApplying, Fault::DropBeforeApplying],
    );

    let found = client.get(Order::key("c1", 1u32)).await.unwrap();

    assert_eq!(found, Some(order(1)));
    let counts = faults.counts(Operation::GetItem);
    assert_eq!((counts.received, counts.forwarded), (3, 1), "{counts:?}");
}

/// A create is applied, then its answer is lost (a 500, or a dropped
/// connection): the SDK retries, and the retry reports the first attempt's
/// success rather than `ConditionFailed`; the order is stored once.
#[tokio::test]
async fn a_create_whose_answer_is_lost_succeeds_and_is_applied_once() {
    for fault in [Fault::ServerErrorAfterApplying, Fault::DropAfterApplying] {
        let (_server, faults, client) = shop().await;
        faults.script(Operation::TransactWriteItems, [fault]);

        let created = client.create(&order(1)).await;

        assert_eq!(created.unwrap(), order(1), "{fault:?}");
        assert_eq!(stored(&client).await, [order(1)], "{fault:?}");
        let counts = faults.counts(Operation::TransactWriteItems);
        assert_eq!(counts.forwarded, 2, "applied, then retried: {counts:?}");
    }
}

/// The same for an increment, which a blind retry would apply twice.
#[tokio::test]
async fn an_increment_whose_answer_is_lost_is_applied_once() {
    let (_server, faults, client) = shop().await;
    client.put(&order(1)).await.unwrap();
    faults.script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying],
    );

    client
        .update(Order::key("c1", 1u32))
        .add(Order::fields().total, 5i64)
        .await
        .unwrap();

    assert_eq!(stored(&client).await[0].total, 105);
    assert_eq!(faults.counts(Operation::TransactWriteItems).forwarded, 2);
}

#[tokio::test]
async fn partial_batches_are_retried_and_nothing_is_dropped_or_sent_twice() {
    let (_server, faults, client) = shop().await;
    let all: Vec<Order> = (0..60).map(order).collect(); // chunks of 25, 25, 10
    faults.script(
        Operation::BatchWriteItem,
        [
            Fault::PartialBatch { forward: 10 },
            Fault::PartialBatch { forward: 0 },
            Fault::Throttling,
            Fault::PartialBatch { forward: 3 },
        ],
    );

    let written = client.batch_write().put_all(&all).await.unwrap();

    assert!(written.is_complete(), "{written:?}");
    assert_eq!(stored(&client).await, all);
    assert_eq!(faults.pending(Operation::BatchWriteItem), 0);
    let counts = faults.counts(Operation::BatchWriteItem);
    assert_eq!(
        counts.batch_items_forwarded, 60,
        "each put once: {counts:?}"
    );

    faults.script(
        Operation::BatchGetItem,
        [
            Fault::PartialBatch { forward: 7 },
            Fault::PartialBatch { forward: 0 },
        ],
    );
    let read = client
        .batch_get::<Order>(all.iter().map(|o| o.primary_key()))
        .await
        .unwrap();
    assert!(read.unprocessed.is_empty() && read.errors.is_empty());
    let mut items = read.items;
    items.sort_by_key(|o| o.id);
    assert_eq!(items, all);
}

/// Thirty puts, each throttled at random: which puts fail (past the SDK's
/// attempts) and how many requests each took.
async fn thirty_puts_at_half_throttled(seed: u64) -> Vec<(bool, usize)> {
    let (_server, faults, client) = shop().await;
    faults.rate(Operation::PutItem, 0.5, Fault::Throttling);
    faults.seed(seed);
    let mut outcomes = Vec::new();
    for id in 0..30 {
        let before = faults.counts(Operation::PutItem).received;
        let ok = client.put(&order(id)).await.is_ok();
        outcomes.push((ok, faults.counts(Operation::PutItem).received - before));
    }
    outcomes
}

#[tokio::test]
async fn a_rate_with_a_seed_meets_the_same_faults_every_run() {
    let first = thirty_puts_at_half_throttled(7).await;

    assert_eq!(thirty_puts_at_half_throttled(7).await, first);
    assert_ne!(thirty_puts_at_half_throttled(8).await, first);
    // At one in two, some puts were retried, and most got through.
    assert!(first.iter().any(|&(_, requests)| requests > 1), "{first:?}");
    assert!(
        first.iter().filter(|&&(ok, _)| ok).count() > 15,
        "{first:?}"
    );
}

#[tokio::test]
async fn a_delay_slows_the_server_until_cleared() {
    let (_server, faults, client) = shop().await;
    client.put(&order(1)).await.unwrap();
    faults.rate(
        Operation::GetItem,
        1.0,
        Fault::Delay(Duration::from_millis(300)),
    );

    // The application's own deadline fires first.
    let get = client.get(Order::key("c1", 1u32));
    let late = tokio::time::timeout(Duration::from_millis(50), get).await;
    assert!(late.is_err(), "the deadline fired");

    let started = Instant::now();
    let found = client.get(Order::key("c1", 1u32)).await.unwrap();
    assert_eq!(found, Some(order(1)));
    assert!(started.elapsed() >= Duration::from_millis(300));

    faults.clear();
    let get = client.get(Order::key("c1", 1u32));
    let found = tokio::time::timeout(Duration::from_secs(10), get).await;
    assert_eq!(found.unwrap().unwrap(), Some(order(1)));
}

/// A metering proxy, in front of a server of its own, sums the capacity the
/// server reports though the client did not ask for it.
#[tokio::test]
async fn a_metering_proxy_sums_what_the_server_reports() {
    let server = EmbeddedDynamo::start().await.unwrap();
    let proxy = FaultProxy::start_metering(server.endpoint()).await.unwrap();
    let client = Client::local(proxy.endpoint(), "meter");
    client.create_table(&[Order::MODEL]).await.unwrap();

    client.put(&order(1)).await.unwrap();
    let found = client
        .get(Order::key("c1", 1u32))
        .consistent_read(true)
        .await
        .unwrap();

    assert_eq!(found, Some(order(1)));
    let faults = proxy.faults();
    assert_eq!(faults.capacity(Operation::PutItem).write, 1.0);
    assert_eq!(faults.capacity(Operation::GetItem).read, 1.0);
    // CreateTable takes no ReturnConsumedCapacity: it passes unchanged.
    assert_eq!(faults.all_capacity().get("CreateTable"), None);
    assert_eq!(faults.all_counts()["CreateTable"].forwarded, 1);
}
