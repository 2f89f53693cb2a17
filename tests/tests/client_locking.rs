//! Optimistic locking (`#[entity(version)]`): a create writes version 1,
//! every write of an existing item conditions on the version the caller
//! read and bumps it, and a mismatch is `Error::VersionConflict` with the
//! stored version.

mod common;

use common::{stored, stored_entity};
use entity_client::expr::Update;
use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, Entity, Error};
use entity_tests::harness::{table, TestTable};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "lock")]
#[pk(id)]
#[sk()]
struct Counter {
    id: String,
    count: i64,
    label: Option<String>,
    #[entity(version)]
    version: u64,
}

fn counter(id: &str, count: i64) -> Counter {
    Counter {
        id: id.into(),
        count,
        label: None,
        version: 0,
    }
}

async fn setup() -> TestTable {
    table(&[Counter::MODEL]).await
}

fn key() -> entity_client::PrimaryKey<Counter> {
    Counter::key("c1")
}

#[tokio::test]
async fn create_writes_version_one_and_each_put_the_next() {
    let t = setup().await;
    let c = &t.client;

    let created = c.create(&counter("c1", 0)).await.unwrap();
    assert_eq!(created.version, 1);

    let mut next = created.clone();
    next.count = 5;
    let put = c.put(&next).await.unwrap();
    assert_eq!((put.version, put.count), (2, 5));
    assert_eq!(stored_entity(c, &key()).await, Some(put));
}

#[tokio::test]
async fn a_put_from_a_stale_read_is_a_version_conflict_and_writes_nothing() {
    let t = setup().await;
    let c = &t.client;
    let v1 = c.create(&counter("c1", 0)).await.unwrap();
    let mut winner = v1.clone();
    winner.count = 1;
    c.put(&winner).await.unwrap();

    let mut loser = v1;
    loser.count = 99;
    let err = c.put(&loser).await.unwrap_err();

    match &err {
        Error::VersionConflict {
            entity: "Counter",
            expected: 1,
            found: Some(2),
            current: Some(current),
        } => assert_eq!(Counter::from_item((**current).clone()).unwrap().count, 1),
        other => panic!("{other:?}"),
    }
    assert!(err.is_condition_failed());
    assert_eq!(stored_entity(c, &key()).await.unwrap().count, 1);
}

#[tokio::test]
async fn version_zero_means_the_item_must_not_exist_and_a_missing_item_conflicts() {
    let t = setup().await;
    let c = &t.client;

    let first = c.put(&counter("c1", 1)).await.unwrap();
    assert_eq!(first.version, 1, "a put of version 0 creates");
    let err = c.put(&counter("c1", 2)).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::VersionConflict {
                expected: 0,
                found: Some(1),
                ..
            }
        ),
        "{err:?}"
    );

    let mut ghost = counter("c2", 1);
    ghost.version = 4;
    let err = c.put(&ghost).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::VersionConflict {
                expected: 4,
                found: None,
                current: None,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(stored(c, &Counter::key("c2")).await, None);
}

#[tokio::test]
async fn upsert_checks_the_version_and_keeps_attributes_it_does_not_own() {
    let t = setup().await;
    let c = &t.client;
    let v1 = c.create(&counter("c1", 0)).await.unwrap();
    let mut next = v1.clone();
    next.count = 3;

    let v2 = c.upsert(&next).await.unwrap();
    assert_eq!(v2.version, 2);
    let err = c.upsert(&next).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::VersionConflict {
                expected: 1,
                found: Some(2),
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn updates_bump_the_version_and_check_an_expected_one() {
    let t = setup().await;
    let c = &t.client;
    c.create(&counter("c1", 0)).await.unwrap();
    let f = Counter::fields();

    c.update(key()).add(f.count, 1i64).await.unwrap();
    assert_eq!(
        stored_entity(c, &key()).await.unwrap().version,
        2,
        "bumped without a check"
    );

    let after: Counter = c
        .patch(key())
        .add(f.count, 1i64)
        .expected_version(2)
        .return_new()
        .await
        .unwrap();
    assert_eq!((after.count, after.version), (2, 3));

    let err = c
        .patch(key())
        .set(f.label, Some("x".to_owned()))
        .expected_version(2)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::VersionConflict {
                expected: 2,
                found: Some(3),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(stored_entity(c, &key()).await.unwrap().label, None);
}

#[tokio::test]
async fn a_delete_checks_an_expected_version() {
    let t = setup().await;
    let c = &t.client;
    c.create(&counter("c1", 0)).await.unwrap();

    let err = c.delete(key()).expected_version(7).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::VersionConflict {
                expected: 7,
                found: Some(1),
                ..
            }
        ),
        "{err:?}"
    );
    c.remove(key()).expected_version(1).await.unwrap();
    assert_eq!(stored(c, &key()).await, None);
}

#[tokio::test]
async fn transactions_condition_puts_on_the_version_and_bump_it() {
    let t = setup().await;
    let c = &t.client;
    let v1 = c.create(&counter("c1", 0)).await.unwrap();

    let mut next = v1.clone();
    next.count = 10;
    c.transact_write()
        .put(&next)
        .update(
            Counter::key("c2"),
            Update::new().set(Counter::fields().count, 1i64),
            None,
        )
        .await
        .unwrap();
    assert_eq!(stored_entity(c, &key()).await.unwrap().version, 2);
    assert_eq!(
        stored_entity(c, &Counter::key("c2")).await.unwrap().version,
        1,
        "an update that creates the item starts at version 1"
    );

    let err = c.transact_write().put(&next).await.unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    assert_eq!(stored_entity(c, &key()).await.unwrap().version, 2);
}

/// The test: 16 tasks each read-modify-write the same item 50 times,
/// retrying on conflict. Every successful write is counted once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_read_modify_writes_lose_no_update() {
    const TASKS: u64 = 16;
    const WRITES: u64 = 50;
    let t = setup().await;
    t.client.create(&counter("c1", 0)).await.unwrap();
    let conflicts = Arc::new(AtomicU64::new(0));

    let workers: Vec<_> = (0..TASKS)
        .map(|_| {
            let client: Client = t.client.clone();
            let conflicts = conflicts.clone();
            tokio::spawn(async move {
                let mut written = 0;
                while written < WRITES {
                    let mut current = client
                        .get(key())
                        .consistent_read(true)
                        .await
                        .unwrap()
                        .unwrap();
                    current.count += 1;
                    match client.put(&current).await {
                        Ok(_) => written += 1,
                        Err(Error::VersionConflict { .. }) => {
                            conflicts.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(other) => panic!("{other:?}"),
                    }
                }
                written
            })
        })
        .collect();
    let mut successes = 0;
    for worker in workers {
        successes += worker.await.unwrap();
    }

    let last = stored_entity(&t.client, &key()).await.unwrap();
    assert_eq!(successes, TASKS * WRITES);
    assert_eq!(last.count as u64, successes, "no update lost");
    assert_eq!(
        last.version,
        successes + 1,
        "one version per write, after the create"
    );
    let conflicts = conflicts.load(Ordering::Relaxed);
    assert!(conflicts > 0, "the writes contended");
    println!("{conflicts} conflicts retried");
}

/// A versioned put whose response is lost after it was applied: the retry
/// (the same transaction token) reports success instead of a conflict with
/// itself, and the version moves once.
#[tokio::test]
async fn a_versioned_put_through_a_lost_response_is_applied_once() {
    let t = setup().await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let client = Client::local(proxy.endpoint(), t.client.table());
    let v1 = t.client.create(&counter("c1", 0)).await.unwrap();
    proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying],
    );

    let mut next = v1;
    next.count = 1;
    let stored_counter = client.put(&next).await.unwrap();

    assert_eq!(stored_counter.version, 2);
    assert_eq!(stored_entity(&t.client, &key()).await, Some(stored_counter));
    assert_eq!(
        proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        2
    );
}
