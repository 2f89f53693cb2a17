//! The client's retry paths, through the fault-injecting proxy
//! (`entity_client::faults`): throttling, server errors before and after
//! a request is applied, dropped connections and partial batch results.
//!
//! Each test scripts faults, runs an operation through the proxy, and then
//! reads what is stored with a client that talks to the server directly, so
//! the assertions are on data: nothing lost, nothing applied twice (or, where
//! a retry does apply twice, that it is documented here).

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::{scan_raw, stored, stored_entity, task};
use entity_client::expr::Update;
use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{BatchPolicy, Client, Entity, EntityModel, Error, Item};
use entity_tests::harness::{table, TestTable};
use entity_tests::{Order, Status, Task};
use std::collections::BTreeMap;
use std::time::Duration;

/// Attempts the SDK makes per request in these tests (its default is 3).
const SDK_ATTEMPTS: u32 = entity_tests::harness::FAST_SDK_ATTEMPTS;

/// A table, a fault proxy in front of its server, and a client through the
/// proxy with fast retries. `table.client` talks to the server directly:
/// what it reads is what is stored.
struct Faulty {
    table: TestTable,
    proxy: FaultProxy,
    client: Client,
}

async fn faulty(models: &[&EntityModel]) -> Faulty {
    let table = table(models).await;
    let proxy = FaultProxy::start(&table.endpoint()).await.unwrap();
    let name = table.client.table().to_owned();
    let client = Client::new(
        entity_tests::harness::fast_sdk(proxy.endpoint(), &name),
        name,
    )
    .with_batch_policy(BatchPolicy {
        max_attempts: 8,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
        concurrency: 4,
    });
    Faulty {
        table,
        proxy,
        client,
    }
}

fn tasks(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| task(&format!("t{i:03}"), "p", "e", (i % 10) as u8, Status::Open))
        .collect()
}

fn order(id: &str, total_cents: i64) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents,
    }
}

/// Items by their partition key, so two lists compare regardless of order
/// (and a repeated key shows up as a short map).
fn by_pk(items: impl IntoIterator<Item = Item>) -> BTreeMap<String, Item> {
    items.into_iter().map(|item| (pk_of(&item), item)).collect()
}

fn pk_of(item: &Item) -> String {
    match item.get("pk") {
        Some(AttributeValue::S(pk)) => pk.clone(),
        other => panic!("no string pk: {other:?}"),
    }
}

fn items_of(tasks: &[Task]) -> BTreeMap<String, Item> {
    by_pk(tasks.iter().map(|t| t.to_item().unwrap()))
}

// ---- batch writes ---------------------------------------------------------

#[tokio::test]
async fn batch_write_through_partial_results_and_throttles_loses_nothing() {
    let f = faulty(&[Task::MODEL]).await;
    let all = tasks(60); // three chunks: 25, 25, 10
    f.proxy.faults().script(
        Operation::BatchWriteItem,
        [
            Fault::PartialBatch { forward: 10 },
            Fault::Throttling,
            Fault::PartialBatch { forward: 0 },
            Fault::ProvisionedThroughputExceeded,
            Fault::PartialBatch { forward: 3 },
            Fault::ServerErrorBeforeApplying,
            Fault::PartialBatch { forward: 1 },
        ],
    );

    let out = f.client.batch_write().put_all(&all).await.unwrap();

    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, 60);
    assert_eq!(by_pk(scan_raw(&f.table.client).await), items_of(&all));
    // Every fault was met, and every put reached the server exactly once:
    // held-back items were resent, and nothing was sent twice.
    assert_eq!(f.proxy.faults().pending(Operation::BatchWriteItem), 0);
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::BatchWriteItem)
            .batch_items_forwarded,
        60
    );
}

#[tokio::test]
async fn batch_write_puts_and_deletes_through_faults_after_forwarding_are_applied_once() {
    let f = faulty(&[Task::MODEL]).await;
    let all = tasks(40);
    f.table
        .client
        .batch_write()
        .put_all(&all[..20])
        .await
        .unwrap();
    // Delete the 20 stored tasks and put the other 20: two chunks, each
    // applied, then failed in the client's eyes, then sent again whole.
    f.proxy.faults().script(
        Operation::BatchWriteItem,
        [Fault::ServerErrorAfterApplying, Fault::DropAfterApplying],
    );
    let mut batch = f.client.batch_write().put_all(&all[20..]);
    for t in &all[..20] {
        batch = batch.delete(Task::key(t.task_id.as_str()));
    }

    let out = batch.await.unwrap();

    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, 40);
    assert_eq!(by_pk(scan_raw(&f.table.client).await), items_of(&all[20..]));
    let counts = f.proxy.faults().counts(Operation::BatchWriteItem);
    assert_eq!(counts.received, 4, "{counts:?}");
    assert_eq!(
        counts.batch_items_forwarded, 80,
        "both chunks were sent twice"
    );
}

#[tokio::test]
async fn batch_write_reports_exactly_what_is_left_when_attempts_run_out() {
    let f = faulty(&[Task::MODEL]).await;
    let client = f.client.clone().with_batch_policy(BatchPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        concurrency: 1,
    });
    let all = tasks(20);
    // Each of the three attempts writes 5 items: 5 are left.
    f.proxy.faults().script(
        Operation::BatchWriteItem,
        [Fault::PartialBatch { forward: 5 }; 3],
    );

    let out = client.batch_write().put_all(&all).await.unwrap();

    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(out.written, 15);
    assert_eq!(out.unprocessed.len(), 5);
    assert!(out.unprocessed.iter().all(|u| u.entity == "Task"));
    let stored_items = by_pk(scan_raw(&f.table.client).await);
    let left = by_pk(out.unprocessed.iter().map(|u| {
        let item = u
            .request
            .as_ref()
            .and_then(|r| r.put_request())
            .expect("an unprocessed put, handed back whole")
            .item()
            .clone();
        assert_eq!(u.key["pk"], item["pk"]);
        item
    }));
    // What is stored and what is reported left are disjoint and together
    // are every item, unchanged.
    assert_eq!(stored_items.len(), 15);
    assert!(left.keys().all(|pk| !stored_items.contains_key(pk)));
    let mut together = stored_items;
    together.extend(left);
    assert_eq!(together, items_of(&all));
    assert_eq!(
        f.proxy.faults().counts(Operation::BatchWriteItem).received,
        3
    );
}

/// DynamoDB answers a BatchWriteItem whose every item is throttled with
/// `ProvisionedThroughputExceededException`. Past the SDK's own attempts,
/// the whole chunk is unprocessed and retried under the `BatchPolicy`, like
/// a partial result: everything is written, each item once.
#[tokio::test]
async fn a_chunk_throttled_past_the_sdk_retries_is_retried_under_the_batch_policy() {
    let f = faulty(&[Task::MODEL]).await;
    // One chunk at a time, so the first chunk meets every throttle.
    let client = f.client.clone().with_batch_policy(BatchPolicy {
        max_attempts: 8,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
        concurrency: 1,
    });
    let all = tasks(30); // chunks of 25 and 5
    f.proxy.faults().script(
        Operation::BatchWriteItem,
        [Fault::Throttling; SDK_ATTEMPTS as usize],
    );

    let out = client.batch_write().put_all(&all).await.unwrap();

    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.is_complete());
    assert_eq!(out.written, 30);
    assert_eq!(by_pk(scan_raw(&f.table.client).await), items_of(&all));
    let counts = f.proxy.faults().counts(Operation::BatchWriteItem);
    // Every throttle, then one request per chunk; each item forwarded once.
    assert_eq!(counts.received, SDK_ATTEMPTS as usize + 2, "{counts:?}");
    assert_eq!(counts.batch_items_forwarded, 30, "{counts:?}");
}

/// The same for BatchGetItem: a batch throttled as a whole is retried under
/// the batch policy and every item comes back.
#[tokio::test]
async fn a_batch_get_throttled_past_the_sdk_retries_is_retried_under_the_batch_policy() {
    let f = faulty(&[Task::MODEL]).await;
    let all = tasks(10);
    f.table.client.batch_write().put_all(&all).await.unwrap();
    f.proxy.faults().script(
        Operation::BatchGetItem,
        [Fault::Throttling; SDK_ATTEMPTS as usize],
    );

    let keys = all.iter().map(|t| t.primary_key());
    let out = f.client.batch_get::<Task>(keys).await.unwrap();

    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.unprocessed.is_empty());
    let mut read = out.items;
    read.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    assert_eq!(read, all);
}

/// A chunk applied by the server but failed in the client's eyes until the
/// batch policy's attempts ran out: the output cannot know it was written,
/// so it reports the chunk's items as unprocessed, by key (the SDK consumed
/// the requests; the batch keeps no copy), with the error. Resending them is
/// safe for puts and deletes.
#[tokio::test]
async fn a_chunk_failing_after_forwarding_is_reported_unprocessed_though_stored() {
    let f = faulty(&[Task::MODEL]).await;
    let client = f.client.clone().with_batch_policy(BatchPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
        concurrency: 1,
    });
    let all = tasks(5);
    f.proxy.faults().script(
        Operation::BatchWriteItem,
        [Fault::ServerErrorAfterApplying; 3],
    );

    let out = client.batch_write().put_all(&all).await.unwrap();

    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert!(
        matches!(out.errors[0], Error::Service { .. }),
        "{:?}",
        out.errors[0]
    );
    assert_eq!((out.written, out.unprocessed.len()), (0, 5));
    assert!(out.unprocessed.iter().all(|u| u.request.is_none()));
    let reported = by_pk(out.unprocessed.iter().map(|u| u.key.clone()));
    let keys = by_pk(all.iter().map(|t| t.primary_key().to_item()));
    assert_eq!(reported, keys);
    assert_eq!(by_pk(scan_raw(&f.table.client).await), items_of(&all));
    assert_eq!(
        f.proxy.faults().counts(Operation::BatchWriteItem).received,
        3
    );
}

/// The same for a chunk in the middle of a larger batch, built by
/// `put_all` and cut as it is sent: it reports its own 25 keys, neither its
/// neighbours' nor fewer.
#[tokio::test]
async fn a_middle_chunk_failing_reports_exactly_its_own_keys() {
    let f = faulty(&[Task::MODEL]).await;
    let client = f.client.clone().with_batch_policy(BatchPolicy {
        max_attempts: 2,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
        concurrency: 1,
    });
    let all = tasks(60);
    // One chunk at a time: the first passes, the second fails both its
    // attempts, the third (10 of the builder's and 5 streamed) passes.
    f.proxy.faults().script(
        Operation::BatchWriteItem,
        [
            Fault::Pass,
            Fault::ServerErrorBeforeApplying,
            Fault::ServerErrorBeforeApplying,
        ],
    );
    let streamed: Vec<Task> = (0..5)
        .map(|i| task(&format!("s{i:03}"), "p", "e", 1, Status::Open))
        .collect();

    let out = client
        .batch_write()
        .put_all(&all)
        .put_iter(streamed.clone())
        .await
        .unwrap();

    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!((out.written, out.unprocessed.len()), (40, 25));
    assert!(out
        .unprocessed
        .iter()
        .all(|u| u.request.is_none() && u.entity == "Task"));
    let reported = by_pk(out.unprocessed.iter().map(|u| u.key.clone()));
    let keys = by_pk(all[25..50].iter().map(|t| t.primary_key().to_item()));
    assert_eq!(reported, keys);
    let stored: Vec<Task> = all[..25]
        .iter()
        .chain(&all[50..])
        .chain(&streamed)
        .cloned()
        .collect();
    assert_eq!(by_pk(scan_raw(&f.table.client).await), items_of(&stored));
}

// ---- batch reads ----------------------------------------------------------

#[tokio::test]
async fn batch_get_through_partial_unprocessed_keys_returns_every_item() {
    let f = faulty(&[Task::MODEL]).await;
    let all = tasks(150); // two chunks of keys: 100 and 50
    f.table.client.batch_write().put_all(&all).await.unwrap();
    f.proxy.faults().script(
        Operation::BatchGetItem,
        [
            Fault::PartialBatch { forward: 30 },
            Fault::PartialBatch { forward: 0 },
            Fault::Throttling,
            Fault::PartialBatch { forward: 10 },
            Fault::ServerErrorBeforeApplying,
            Fault::DropBeforeApplying,
        ],
    );
    let keys = all
        .iter()
        .map(|t| Task::key(t.task_id.as_str()))
        .chain([Task::key("missing-1"), Task::key("missing-2")]);

    let out = f
        .client
        .batch_get(keys)
        .consistent_read(true)
        .await
        .unwrap();

    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.unprocessed.is_empty());
    let mut got: BTreeMap<String, Task> = BTreeMap::new();
    for t in out.items {
        let id = t.task_id.clone();
        assert!(got.insert(id.clone(), t).is_none(), "{id} read twice");
    }
    let want: BTreeMap<String, Task> = all.into_iter().map(|t| (t.task_id.clone(), t)).collect();
    assert_eq!(got, want);
    assert_eq!(f.proxy.faults().pending(Operation::BatchGetItem), 0);
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::BatchGetItem)
            .batch_items_forwarded,
        152,
        "each key reached the server once"
    );
}

#[tokio::test]
async fn batch_get_reports_the_keys_left_when_attempts_run_out() {
    let f = faulty(&[Task::MODEL]).await;
    let client = f.client.clone().with_batch_policy(BatchPolicy {
        max_attempts: 2,
        ..BatchPolicy::default()
    });
    let all = tasks(10);
    f.table.client.batch_write().put_all(&all).await.unwrap();
    f.proxy.faults().script(
        Operation::BatchGetItem,
        [Fault::PartialBatch { forward: 4 }; 2],
    );

    let out = client
        .batch_get(all.iter().map(|t| Task::key(t.task_id.as_str())))
        .await
        .unwrap();

    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(out.items.len(), 8);
    assert_eq!(out.unprocessed.len(), 2);
    // Read and left are disjoint and together are every key.
    let mut keys: Vec<String> = out
        .items
        .iter()
        .map(|t| pk_of(&t.to_item().unwrap()))
        .collect();
    keys.extend(out.unprocessed.iter().map(|k| pk_of(&k.to_item())));
    keys.sort();
    let mut want: Vec<String> = items_of(&all).into_keys().collect();
    want.sort();
    assert_eq!(keys, want);
}

// ---- single requests: the SDK's retries ------------------------------------

#[tokio::test]
async fn put_get_and_query_succeed_through_throttles_and_errors_before_forwarding() {
    let f = faulty(&[Order::MODEL]).await;
    let o = order("o1", 1250);
    f.proxy.faults().script(
        Operation::PutItem,
        [Fault::ProvisionedThroughputExceeded, Fault::Throttling],
    );
    f.proxy.faults().script(
        Operation::GetItem,
        [Fault::ServerErrorBeforeApplying, Fault::Throttling],
    );
    f.proxy.faults().script(
        Operation::Query,
        [
            Fault::Throttling,
            Fault::ServerErrorBeforeApplying,
            Fault::DropBeforeApplying,
        ],
    );

    f.client.put(&o).await.unwrap();
    let key = Order::key("u1", "2024-01-15", "o1");
    assert_eq!(stored_entity(&f.table.client, &key).await, Some(o.clone()));
    let read: Option<Order> = f.client.get(key).await.unwrap();
    assert_eq!(read, Some(o.clone()));
    let listed = f.client.query(Order::primary("u1")).all().await.unwrap();
    assert_eq!(listed, vec![o]);

    for (operation, faults) in [
        (Operation::PutItem, 2),
        (Operation::GetItem, 2),
        (Operation::Query, 3),
    ] {
        let counts = f.proxy.faults().counts(operation);
        assert_eq!(counts.received, faults + 1, "{operation}: {counts:?}");
        assert_eq!(counts.forwarded, 1, "{operation}: {counts:?}");
    }
}

#[tokio::test]
async fn a_query_over_several_pages_reads_every_item_once_through_faults() {
    let f = faulty(&[Order::MODEL]).await;
    let orders: Vec<Order> = (0..35).map(|i| order(&format!("o{i:02}"), i)).collect();
    f.table.client.batch_write().put_all(&orders).await.unwrap();
    // Faults between pages: the page after each is asked again from the
    // same start key, and the items come out once.
    f.proxy.faults().script(
        Operation::Query,
        [
            Fault::Pass,
            Fault::ServerErrorBeforeApplying,
            Fault::DropAfterApplying,
            Fault::Pass,
            Fault::ServerErrorAfterApplying,
        ],
    );

    let read = f
        .client
        .query(Order::primary("u1"))
        .page_size(10)
        .all()
        .await
        .unwrap();

    assert_eq!(read, orders);
    assert_eq!(f.proxy.faults().pending(Operation::Query), 0);
}

#[tokio::test]
async fn a_parallel_scan_reads_every_item_once_through_faults() {
    let f = faulty(&[Order::MODEL]).await;
    let orders: Vec<Order> = (0..30).map(|i| order(&format!("o{i:02}"), i)).collect();
    f.table.client.batch_write().put_all(&orders).await.unwrap();
    f.proxy.faults().script(
        Operation::Scan,
        [
            Fault::Throttling,
            Fault::DropAfterApplying,
            Fault::Pass,
            Fault::ServerErrorAfterApplying,
            Fault::ServerErrorBeforeApplying,
        ],
    );

    let mut read = f
        .client
        .scan::<Order>()
        .segments(3)
        .page_size(4)
        .all()
        .await
        .unwrap();

    read.sort_by(|a, b| a.order_id.cmp(&b.order_id));
    assert_eq!(read, orders);
    assert_eq!(f.proxy.faults().pending(Operation::Scan), 0);
}

#[tokio::test]
async fn throttled_past_the_sdk_retries_is_error_throttled_and_nothing_is_written() {
    let f = faulty(&[Order::MODEL]).await;
    f.proxy.faults().script(
        Operation::PutItem,
        [Fault::Throttling; SDK_ATTEMPTS as usize],
    );

    let err = f.client.put(&order("o1", 1)).await.unwrap_err();

    assert!(
        matches!(
            err,
            Error::Throttled {
                operation: "PutItem",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(std::error::Error::source(&err).is_some());
    assert_eq!(scan_raw(&f.table.client).await, Vec::<Item>::new());
    assert_eq!(
        f.proxy.faults().counts(Operation::PutItem).received,
        SDK_ATTEMPTS as usize
    );
}

#[tokio::test]
async fn server_errors_past_the_sdk_retries_are_error_service() {
    let f = faulty(&[Order::MODEL]).await;
    f.proxy.faults().script(
        Operation::GetItem,
        [Fault::ServerErrorBeforeApplying; SDK_ATTEMPTS as usize],
    );

    let err = f
        .client
        .get(Order::key("u1", "2024-01-15", "o1"))
        .await
        .unwrap_err();

    assert!(
        matches!(
            err,
            Error::Service {
                operation: "GetItem",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        f.proxy.faults().counts(Operation::GetItem).received,
        SDK_ATTEMPTS as usize
    );
}

/// The SDK client `Client::local` builds, unchanged: standard retries, three
/// attempts, backoff under a second (so this test takes up to three).
#[tokio::test]
async fn the_default_sdk_client_retries_twice() {
    let t = table(&[Order::MODEL]).await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let client = Client::local(proxy.endpoint(), t.client.table());
    let o = order("o1", 5);
    t.client.put(&o).await.unwrap();
    let key = || Order::key("u1", "2024-01-15", "o1");

    proxy
        .faults()
        .script(Operation::GetItem, [Fault::Throttling; 2]);
    assert_eq!(client.get(key()).await.unwrap(), Some(o));
    assert_eq!(proxy.faults().counts(Operation::GetItem).received, 3);

    proxy
        .faults()
        .script(Operation::GetItem, [Fault::Throttling; 3]);
    let err = client.get(key()).await.unwrap_err();
    assert!(matches!(err, Error::Throttled { .. }), "{err:?}");
    assert_eq!(proxy.faults().counts(Operation::GetItem).received, 6);
}

// ---- writes applied, then failed: idempotency -----------------------------

#[tokio::test]
async fn a_put_through_a_server_error_after_forwarding_is_stored_once() {
    let f = faulty(&[Order::MODEL]).await;
    let o = order("o1", 700);
    f.proxy
        .faults()
        .script(Operation::PutItem, [Fault::ServerErrorAfterApplying]);

    f.client.put(&o).await.unwrap();

    let counts = f.proxy.faults().counts(Operation::PutItem);
    assert_eq!(
        (counts.received, counts.forwarded),
        (2, 2),
        "applied, then retried"
    );
    assert_eq!(
        by_pk(scan_raw(&f.table.client).await),
        by_pk([o.to_item().unwrap()])
    );
}

// A write that is not idempotent (a create, a remove, an add) goes as a
// one-item TransactWriteItems with a client request token: the SDK's retry
// after a lost response resends the token, and the server answers it with
// the first call's success instead of applying it again.

/// A create whose first attempt was applied, then answered with a 500 or a
/// dropped connection: the retry reports success, and the item is written
/// once.
async fn create_through(fault: Fault) {
    let f = faulty(&[Order::MODEL]).await;
    let o = order("o1", 900);
    f.proxy
        .faults()
        .script(Operation::TransactWriteItems, [fault]);

    let stored_order = f.client.create(&o).await.unwrap();

    assert_eq!(stored_order, o);
    assert_eq!(
        by_pk(scan_raw(&f.table.client).await),
        by_pk([o.to_item().unwrap()])
    );
    let counts = f.proxy.faults().counts(Operation::TransactWriteItems);
    assert_eq!(
        (counts.received, counts.forwarded),
        (2, 2),
        "applied, then retried"
    );
    assert_eq!(f.proxy.faults().counts(Operation::PutItem).received, 0);
}

#[tokio::test]
async fn a_create_through_a_server_error_after_forwarding_reports_success() {
    create_through(Fault::ServerErrorAfterApplying).await;
}

#[tokio::test]
async fn a_create_through_a_dropped_connection_after_forwarding_reports_success() {
    create_through(Fault::DropAfterApplying).await;
}

/// The mirror image: `remove` deletes the item, the response is lost, and
/// the retry reports the delete rather than `NotFound`.
#[tokio::test]
async fn a_remove_through_a_server_error_after_forwarding_reports_success() {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 1)).await.unwrap();
    f.proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying],
    );
    let key = || Order::key("u1", "2024-01-15", "o1");

    f.client.remove(key()).await.unwrap();

    assert_eq!(stored(&f.table.client, &key()).await, None);
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        2
    );
    let err = f.client.remove(key()).await.unwrap_err();
    assert!(
        matches!(err, Error::NotFound { entity: "Order" }),
        "{err:?}"
    );
}

/// An `add` whose response is lost after it was applied is applied once.
async fn add_through(fault: Fault) {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 1000)).await.unwrap();
    f.proxy
        .faults()
        .script(Operation::TransactWriteItems, [fault]);
    let key = || Order::key("u1", "2024-01-15", "o1");

    f.client
        .update(key())
        .add(Order::fields().total_cents, 100i64)
        .await
        .unwrap();

    let stored_order: Order = stored_entity(&f.table.client, &key()).await.unwrap();
    assert_eq!(stored_order.total_cents, 1100, "one add, applied once");
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        2
    );
    assert_eq!(f.proxy.faults().counts(Operation::UpdateItem).received, 0);
}

#[tokio::test]
async fn an_add_through_a_server_error_after_forwarding_is_applied_once() {
    add_through(Fault::ServerErrorAfterApplying).await;
}

#[tokio::test]
async fn an_add_through_a_dropped_connection_after_forwarding_is_applied_once() {
    add_through(Fault::DropAfterApplying).await;
}

/// A caller that resends an update with its own token, after an error,
/// does not apply it twice either.
#[tokio::test]
async fn an_update_resent_by_the_caller_with_its_token_is_applied_once() {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 1000)).await.unwrap();
    let key = || Order::key("u1", "2024-01-15", "o1");
    let add = || {
        f.client
            .update(key())
            .add(Order::fields().total_cents, 5i64)
            .idempotency_token("add-5-to-o1")
    };
    f.proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying; SDK_ATTEMPTS as usize],
    );
    let err = add().await.unwrap_err();
    assert!(
        matches!(&err, Error::OutcomeUnknown { token: Some(t), .. } if t == "add-5-to-o1"),
        "{err:?}"
    );

    add().await.unwrap();

    let stored_order: Order = stored_entity(&f.table.client, &key()).await.unwrap();
    assert_eq!(
        stored_order.total_cents, 1005,
        "applied by the first call only"
    );
}

/// When every attempt of a write sent with a token (here the client's own,
/// random one) loses its response, the write was applied (once: the SDK's
/// retries resent its token) and the caller cannot know: `OutcomeUnknown`,
/// with the token. Resent with it, the write is not applied again.
#[tokio::test]
async fn a_write_whose_every_response_is_lost_is_outcome_unknown_with_its_token() {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 0)).await.unwrap();
    let key = || Order::key("u1", "2024-01-15", "o1");
    let add = || {
        f.client
            .update(key())
            .add(Order::fields().total_cents, 1i64)
    };
    let total = || async {
        let stored: Order = stored_entity(&f.table.client, &key()).await.unwrap();
        stored.total_cents
    };

    f.proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying; SDK_ATTEMPTS as usize],
    );
    let err = add().await.unwrap_err();
    let Error::OutcomeUnknown {
        operation: "TransactWriteItems",
        entity: "Order",
        token: Some(token),
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert!(err.to_string().contains("idempotency token"), "{err}");
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        SDK_ATTEMPTS as usize
    );
    assert_eq!(total().await, 1, "applied by the first attempt only");

    add().idempotency_token(token.clone()).await.unwrap();
    assert_eq!(total().await, 1, "the resend with its token is not applied");

    // A transaction likewise, its responses lost after dropped connections.
    f.proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::DropAfterApplying; SDK_ATTEMPTS as usize],
    );
    let transaction = || {
        f.client.transact_write().update(
            key(),
            Update::new().add(Order::fields().total_cents, 1i64),
            None,
        )
    };
    let err = transaction().await.unwrap_err();
    let Error::OutcomeUnknown {
        token: Some(token), ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(total().await, 2);
    transaction()
        .idempotency_token(token.clone())
        .await
        .unwrap();
    assert_eq!(total().await, 2, "the resent transaction is not applied");
}

/// An `add` that asks for the item back must be an UpdateItem (only it
/// returns items): it is not retried after a failure that may have been
/// applied, and says the outcome is unknown.
#[tokio::test]
async fn an_add_returning_the_item_is_not_retried_after_a_lost_response() {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 1000)).await.unwrap();
    f.proxy
        .faults()
        .script(Operation::UpdateItem, [Fault::ServerErrorAfterApplying]);
    let key = || Order::key("u1", "2024-01-15", "o1");
    let add = || {
        f.client
            .update(key())
            .add(Order::fields().total_cents, 100i64)
            .return_new()
    };

    let err = add().await.unwrap_err();

    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                operation: "UpdateItem",
                entity: "Order",
                ..
            }
        ),
        "{err:?}"
    );
    let stored_order: Order = stored_entity(&f.table.client, &key()).await.unwrap();
    assert_eq!(stored_order.total_cents, 1100, "applied once, not retried");
    assert_eq!(f.proxy.faults().counts(Operation::UpdateItem).forwarded, 1);

    f.proxy.faults().script(
        Operation::UpdateItem,
        [Fault::Throttling, Fault::ServerErrorBeforeApplying],
    );
    let err = add().await.unwrap_err();
    assert!(
        matches!(err, Error::OutcomeUnknown { .. }),
        "a 500 may have been applied: {err:?}"
    );
    assert_eq!(
        add().await.unwrap().total_cents,
        1200,
        "a throttle is retried"
    );
}

/// A write that returns the item as it was is not repeated after a lost
/// response either: the repeat would return what the first attempt left.
#[tokio::test]
async fn a_delete_returning_the_old_item_is_not_retried_after_a_lost_response() {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 1)).await.unwrap();
    f.proxy
        .faults()
        .script(Operation::DeleteItem, [Fault::ServerErrorAfterApplying]);
    let key = || Order::key("u1", "2024-01-15", "o1");

    let err = f.client.delete(key()).return_old().await.unwrap_err();

    assert!(matches!(err, Error::OutcomeUnknown { .. }), "{err:?}");
    assert_eq!(f.proxy.faults().counts(Operation::DeleteItem).forwarded, 1);
    assert_eq!(stored(&f.table.client, &key()).await, None);
}

/// With exactly-once writes turned off, an `add` is a plain UpdateItem, and
/// a lost response applies it twice: what the option trades for capacity.
#[tokio::test]
async fn without_exactly_once_an_add_through_a_lost_response_is_applied_twice() {
    let f = faulty(&[Order::MODEL]).await;
    let client = f.client.clone().with_exactly_once(false);
    f.table.client.put(&order("o1", 1000)).await.unwrap();
    f.proxy
        .faults()
        .script(Operation::UpdateItem, [Fault::ServerErrorAfterApplying]);
    let key = || Order::key("u1", "2024-01-15", "o1");

    client
        .update(key())
        .add(Order::fields().total_cents, 100i64)
        .await
        .unwrap();

    let stored_order: Order = stored_entity(&f.table.client, &key()).await.unwrap();
    assert_eq!(stored_order.total_cents, 1200, "one add, applied twice");
}

/// Writes that are idempotent stay single-item calls: a set-only patch, a
/// blind delete.
#[tokio::test]
async fn idempotent_writes_are_single_item_calls() {
    let f = faulty(&[Order::MODEL]).await;
    f.client.put(&order("o1", 1)).await.unwrap();
    let key = || Order::key("u1", "2024-01-15", "o1");
    f.proxy
        .faults()
        .script(Operation::UpdateItem, [Fault::ServerErrorAfterApplying]);
    f.client
        .patch(key())
        .set(Order::fields().total_cents, 7i64)
        .await
        .unwrap();
    f.client.delete(key()).await.unwrap();

    assert_eq!(f.proxy.faults().counts(Operation::PutItem).forwarded, 1);
    assert_eq!(f.proxy.faults().counts(Operation::UpdateItem).forwarded, 2);
    assert_eq!(f.proxy.faults().counts(Operation::DeleteItem).forwarded, 1);
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .received,
        0
    );
    assert_eq!(stored(&f.table.client, &key()).await, None);
}

// ---- dropped connections ---------------------------------------------------

#[tokio::test]
async fn dropped_connections_before_and_after_forwarding_are_retried() {
    let f = faulty(&[Order::MODEL]).await;
    let o = order("o1", 1);
    f.proxy.faults().script(
        Operation::PutItem,
        [Fault::DropBeforeApplying, Fault::DropAfterApplying],
    );
    f.proxy
        .faults()
        .script(Operation::GetItem, [Fault::DropAfterApplying]);

    f.client.put(&o).await.unwrap();
    let read: Option<Order> = f
        .client
        .get(Order::key("u1", "2024-01-15", "o1"))
        .await
        .unwrap();

    assert_eq!(read, Some(o.clone()));
    assert_eq!(
        by_pk(scan_raw(&f.table.client).await),
        by_pk([o.to_item().unwrap()])
    );
    let puts = f.proxy.faults().counts(Operation::PutItem);
    assert_eq!((puts.received, puts.forwarded), (3, 2), "{puts:?}");
}

#[tokio::test]
async fn connections_dropped_past_the_sdk_retries_are_error_service() {
    let f = faulty(&[Order::MODEL]).await;
    f.proxy.faults().script(
        Operation::PutItem,
        [Fault::DropBeforeApplying; SDK_ATTEMPTS as usize],
    );

    let err = f.client.put(&order("o1", 1)).await.unwrap_err();

    assert!(
        matches!(
            err,
            Error::Service {
                operation: "PutItem",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(std::error::Error::source(&err).is_some());
    assert_eq!(scan_raw(&f.table.client).await, Vec::<Item>::new());
}

// ---- transactions ----------------------------------------------------------

/// A transaction that creates one order and adds to another: neither write
/// may happen twice.
async fn transfer_through_a_fault(token: Option<&str>, fault: Fault) {
    let f = faulty(&[Order::MODEL]).await;
    f.table.client.put(&order("o1", 1000)).await.unwrap();
    f.proxy
        .faults()
        .script(Operation::TransactWriteItems, [fault]);
    let created = order("o2", 300);
    let mut transaction = f.client.transact_write().create(&created).update(
        Order::key("u1", "2024-01-15", "o1"),
        Update::new().subtract(Order::fields().total_cents, 300i64),
        None,
    );
    if let Some(token) = token {
        transaction = transaction.idempotency_token(token);
    }

    transaction.await.unwrap();

    let stored_items = by_pk(scan_raw(&f.table.client).await);
    let want = by_pk([
        order("o1", 700).to_item().unwrap(),
        created.to_item().unwrap(),
    ]);
    assert_eq!(stored_items, want, "applied once");
    assert_eq!(
        f.proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        2
    );
}

#[tokio::test]
async fn a_transaction_with_a_token_through_a_server_error_after_forwarding_is_applied_once() {
    transfer_through_a_fault(Some("transfer-o1-o2"), Fault::ServerErrorAfterApplying).await;
}

/// Without a token of ours, the SDK fills in one per call and reuses it on
/// every retry.
#[tokio::test]
async fn a_transaction_without_a_token_through_a_dropped_connection_is_applied_once() {
    transfer_through_a_fault(None, Fault::DropAfterApplying).await;
}
