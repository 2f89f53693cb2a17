//! Streamed batch writes (`put_iter`, `put_stream`): every item arrives
//! exactly once, unprocessed items are retried through partial batch
//! results, and an item the batch cannot write is refused on its own with
//! its position while the rest is written and accounted for.
//!
//! Writes go through the fault-injecting proxy (`entity_client::faults`),
//! which counts the items it forwards; what is stored is read with a client
//! that talks to the server directly.

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::{scan_raw, task};
use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{
    local_sdk_client, BatchPolicy, BatchWriteOutput, Client, Entity, Error, Item, ValidationError,
};
use entity_tests::harness::{table, TestTable};
use entity_tests::{Status, Task};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::time::Duration;

/// A table, a fault proxy in front of its server, and a client through the
/// proxy with fast retries. `table.client` reads what is stored.
struct Proxied {
    table: TestTable,
    proxy: FaultProxy,
    client: Client,
}

async fn proxied(max_attempts: u32) -> Proxied {
    let table = table(&[Task::MODEL]).await;
    let proxy = FaultProxy::start(&table.endpoint()).await.unwrap();
    let name = table.client.table().to_owned();
    let client =
        Client::new(local_sdk_client(proxy.endpoint()), name).with_batch_policy(BatchPolicy {
            max_attempts,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(10),
            concurrency: 4,
        });
    Proxied {
        table,
        proxy,
        client,
    }
}

fn task_no(i: usize) -> Task {
    task(
        &format!("t{i:05}"),
        &format!("p{}", i % 7),
        "e",
        (i % 10) as u8,
        Status::Open,
    )
}

fn by_pk(items: impl IntoIterator<Item = Item>) -> BTreeMap<String, Item> {
    let mut out = BTreeMap::new();
    for item in items {
        let pk = match item.get("pk") {
            Some(AttributeValue::S(pk)) => pk.clone(),
            other => panic!("no string pk: {other:?}"),
        };
        assert!(out.insert(pk.clone(), item).is_none(), "{pk} twice");
    }
    out
}

fn items_of<'a>(tasks: impl IntoIterator<Item = &'a Task>) -> BTreeMap<String, Item> {
    by_pk(tasks.into_iter().map(|t| t.to_item().unwrap()))
}

/// Every request the batch was given is written, unprocessed or refused:
/// once.
fn accounted(out: &BatchWriteOutput) -> usize {
    out.written + out.unprocessed.len() + out.refused.len()
}

#[tokio::test]
async fn five_thousand_streamed_items_arrive_exactly_once() {
    let p = proxied(8).await;
    let n = 5_000;
    let items = futures::stream::iter(0..n).map(task_no);

    let out = p.client.batch_write().put_stream(items).await.unwrap();

    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, n);
    let want: Vec<Task> = (0..n).map(task_no).collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&want));
    // Each put reached the server once, in full chunks of 25.
    let counts = p.proxy.faults().counts(Operation::BatchWriteItem);
    assert_eq!(counts.batch_items_forwarded, n);
    assert_eq!(counts.received, n / 25);
}

#[tokio::test]
async fn builder_requests_and_several_streams_go_together() {
    let p = proxied(8).await;
    let stored: Vec<Task> = (0..10).map(task_no).collect();
    p.table.client.batch_write().put_all(&stored).await.unwrap();

    // Deletes and a put built at once, then two streams: 3 + 1 + 40 + 30.
    let out = p
        .client
        .batch_write()
        .delete(Task::key("t00000"))
        .delete(Task::key("t00001"))
        .delete(Task::key("t00002"))
        .put(&task_no(100))
        .put_iter((200..240).map(task_no))
        .put_stream(futures::stream::iter(300..330).map(task_no))
        .await
        .unwrap();

    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, 74);
    let want: Vec<Task> = (3..10)
        .chain([100])
        .chain(200..240)
        .chain(300..330)
        .map(task_no)
        .collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&want));
    assert_eq!(
        p.proxy
            .faults()
            .counts(Operation::BatchWriteItem)
            .batch_items_forwarded,
        74
    );
}

#[tokio::test]
async fn a_repeated_key_in_a_stream_is_refused_and_the_first_one_written() {
    let p = proxied(8).await;
    let mut again = task_no(3);
    again.title = "the repeat".into();
    // Streamed positions: 0..60 are t00000..t00059, 60 repeats t00003, 61
    // repeats the builder's own put.
    let items = (0..60).map(task_no).chain([again, task_no(900)]);

    let out = p
        .client
        .batch_write()
        .put(&task_no(900))
        .put_iter(items)
        .await
        .unwrap();

    assert_eq!(out.written, 61);
    assert_eq!(accounted(&out), 63);
    let refused: Vec<(usize, &str)> = out.refused.iter().map(|r| (r.position, r.entity)).collect();
    assert_eq!(refused, [(60, "Task"), (61, "Task")]);
    for r in &out.refused {
        assert!(
            matches!(
                &r.error,
                Error::Validation(ValidationError::DuplicateKey { .. })
            ),
            "{r:?}"
        );
    }
    let want: Vec<Task> = (0..60).chain([900]).map(task_no).collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&want));
}

#[tokio::test]
async fn unprocessed_items_of_a_stream_are_retried_and_none_lost() {
    let p = proxied(8).await;
    let n = 300; // 12 chunks
    p.proxy.faults().script(
        Operation::BatchWriteItem,
        [
            Fault::PartialBatch { forward: 10 },
            Fault::PartialBatch { forward: 0 },
            Fault::Throttling,
            Fault::PartialBatch { forward: 3 },
            Fault::ProvisionedThroughputExceeded,
            Fault::PartialBatch { forward: 24 },
            Fault::PartialBatch { forward: 1 },
        ],
    );

    let out = p
        .client
        .batch_write()
        .put_iter((0..n).map(task_no))
        .await
        .unwrap();

    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, n);
    let want: Vec<Task> = (0..n).map(task_no).collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&want));
    assert_eq!(p.proxy.faults().pending(Operation::BatchWriteItem), 0);
    assert_eq!(
        p.proxy
            .faults()
            .counts(Operation::BatchWriteItem)
            .batch_items_forwarded,
        n
    );
}

#[tokio::test]
async fn items_still_unprocessed_when_attempts_run_out_are_reported_by_key() {
    // Two attempts per chunk, and the first chunk is held back twice.
    let p = proxied(2).await;
    p.proxy.faults().script(
        Operation::BatchWriteItem,
        [
            Fault::PartialBatch { forward: 20 },
            Fault::PartialBatch { forward: 2 },
        ],
    );
    let out = {
        // One chunk in flight, so the script meets the first chunk.
        let client = p.client.clone().with_batch_policy(BatchPolicy {
            max_attempts: 2,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(10),
            concurrency: 1,
        });
        client
            .batch_write()
            .put_iter((0..100).map(task_no))
            .await
            .unwrap()
    };

    assert_eq!(out.written, 97);
    assert_eq!(out.unprocessed.len(), 3);
    assert_eq!(accounted(&out), 100);
    assert!(out.errors.is_empty() && out.refused.is_empty());
    let stored = by_pk(scan_raw(&p.table.client).await);
    for u in &out.unprocessed {
        assert_eq!(u.entity, "Task");
        let Some(AttributeValue::S(pk)) = u.key.get("pk") else {
            panic!("no pk in {u:?}");
        };
        assert!(!stored.contains_key(pk), "{pk} reported and stored");
        assert!(u.request.is_some());
    }
    assert_eq!(stored.len(), 97);
}

#[tokio::test]
async fn an_item_that_fails_to_encode_is_refused_and_the_rest_written() {
    let p = proxied(8).await;
    let n = 120;
    let bad = 57;
    let items = futures::stream::iter(0..n).map(move |i| {
        let mut t = task_no(i);
        if i == bad {
            t.estimate = Some(f64::NAN); // DynamoDB has no NaN
        }
        t
    });

    let out = p.client.batch_write().put_stream(items).await.unwrap();

    assert!(!out.is_complete());
    assert_eq!(out.written, n - 1);
    assert_eq!(accounted(&out), n);
    assert!(out.unprocessed.is_empty() && out.errors.is_empty());
    let [refused] = &out.refused[..] else {
        panic!("{:?}", out.refused);
    };
    assert_eq!((refused.position, refused.entity), (bad, "Task"));
    assert!(
        matches!(&refused.error, Error::Encode(e) if e.attribute == "estimate"),
        "{refused:?}"
    );
    let want: Vec<Task> = (0..n).filter(|&i| i != bad).map(task_no).collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&want));
    assert_eq!(
        p.proxy
            .faults()
            .counts(Operation::BatchWriteItem)
            .batch_items_forwarded,
        n - 1
    );
}

#[tokio::test]
async fn an_error_in_the_builder_still_stops_the_batch_before_sending() {
    let p = proxied(8).await;
    let mut bad = task_no(1);
    bad.estimate = Some(f64::INFINITY);
    let out = p
        .client
        .batch_write()
        .put_iter((10..20).map(task_no))
        .put(&bad)
        .await;
    assert!(matches!(out, Err(Error::Encode(_))), "{out:?}");
    assert_eq!(
        p.proxy.faults().counts(Operation::BatchWriteItem).received,
        0
    );
    assert!(scan_raw(&p.table.client).await.is_empty());
}

#[tokio::test]
async fn refusals_keep_their_positions_across_streams_that_wait() {
    let p = proxied(8).await;
    // A chunk built of the builder's request and what follows it: the
    // iterator's entities 10 to 39 are refused (more than a chunk holds), so
    // its first chunk is filled from the next stream, which waits before
    // each entity and refuses its sixth (position 40 + 5).
    let nan = |mut t: Task| {
        t.estimate = Some(f64::NAN);
        t
    };
    let first = (0..40).map(move |i| match i {
        10..40 => nan(task_no(i)),
        _ => task_no(i),
    });
    let second = futures::stream::iter(100..130).then(move |i| async move {
        tokio::task::yield_now().await;
        match i {
            105 => nan(task_no(i)),
            _ => task_no(i),
        }
    });
    let out = p
        .client
        .batch_write()
        .put(&task_no(1000))
        .put_iter(first)
        .put_stream(second)
        .await
        .unwrap();

    let mut positions: Vec<usize> = out.refused.iter().map(|r| r.position).collect();
    positions.sort_unstable();
    let want: Vec<usize> = (10..40).chain([45]).collect();
    assert_eq!(positions, want);
    assert!(out
        .refused
        .iter()
        .all(|r| matches!(r.error, Error::Encode(_))));
    assert!(out.unprocessed.is_empty() && out.errors.is_empty());
    assert_eq!(out.written, 1 + 10 + 29);
    assert_eq!(accounted(&out), 1 + 40 + 30);
    let stored: Vec<Task> = [1000]
        .into_iter()
        .chain(0..10)
        .chain((100..130).filter(|&i| i != 105))
        .map(task_no)
        .collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&stored));
    let counts = p.proxy.faults().counts(Operation::BatchWriteItem);
    assert_eq!(counts.batch_items_forwarded, 40);
    // 40 requests in full chunks of 25: two requests, none of them empty.
    assert_eq!(counts.received, 2);
}

/// An iterator that says it holds more than it does (as an endless one
/// says `usize::MAX`): a size hint is a hint.
struct Boasting(std::ops::Range<usize>);

impl Iterator for Boasting {
    type Item = Task;

    fn next(&mut self) -> Option<Task> {
        self.0.next().map(task_no)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

#[tokio::test]
async fn a_size_hint_far_above_what_comes_is_only_a_hint() {
    let p = proxied(8).await;
    let out = p
        .client
        .batch_write()
        .put_iter(Boasting(0..30))
        .await
        .unwrap();
    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, 30);
    let stored: Vec<Task> = (0..30).map(task_no).collect();
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&stored));

    // The same through `put_all`, whose requests are all built first.
    let p = proxied(8).await;
    let tasks: Vec<Task> = (0..30).map(task_no).collect();
    struct Borrowed<'a>(std::slice::Iter<'a, Task>);
    impl<'a> Iterator for Borrowed<'a> {
        type Item = &'a Task;
        fn next(&mut self) -> Option<&'a Task> {
            self.0.next()
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            (usize::MAX, None)
        }
    }
    let out = p
        .client
        .batch_write()
        .put_all(Borrowed(tasks.iter()))
        .await
        .unwrap();
    assert_eq!(out.written, 30);
    assert_eq!(by_pk(scan_raw(&p.table.client).await), items_of(&tasks));
}
