//! Request statistics and the anti-pattern report, on traffic provoked
//! against the test server: each detector fires on the pattern it looks for
//! and stays quiet on well-spread traffic, and memory stays bounded under
//! 100k distinct partition keys.

use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::stats::{Finding, KeyLabel, Thresholds};
use entity_client::{Client, Entity, StatsConfig};
use entity_tests::harness::{table, TestTable};
use futures::stream::{self, StreamExt};
use std::time::Duration;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "stats")]
#[pk(user)]
#[sk(id)]
struct Note {
    user: String,
    id: u32,
    tag: String,
    body: String,
}

fn note(user: &str, id: u32, tag: &str) -> Note {
    Note {
        user: user.into(),
        id,
        tag: tag.into(),
        body: format!("note {id}"),
    }
}

async fn notes_table() -> TestTable {
    table(&[Note::MODEL]).await
}

/// Limits a test server reaches in a second (DynamoDB Local serves a few
/// dozen reads a second under parallel tests): per-partition limits scaled
/// down 300-fold, one-second slices, and small thresholds for fan-out.
fn scaled() -> StatsConfig {
    StatsConfig::default()
        .window(Duration::from_secs(60), 60)
        .thresholds(Thresholds {
            partition_read_units: 10.0,
            partition_write_units: 5.0,
            fan_out_items: 100.0,
            ..Thresholds::default()
        })
}

fn kinds(client: &Client) -> Vec<&'static str> {
    let report = client.stats().expect("stats").report();
    report.findings.iter().map(Finding::kind).collect()
}

async fn write_all(client: &Client, notes: &[Note]) {
    let out = client
        .batch_write()
        .put_all(notes)
        .await
        .expect("batch write");
    assert!(out.unprocessed.is_empty());
}

#[tokio::test]
async fn hot_partition_fires_on_one_busy_key_only() {
    let t = notes_table().await;
    let spread: Vec<Note> = (0..100).map(|i| note(&format!("u{i}"), 0, "a")).collect();
    write_all(&t.client, &spread).await;
    write_all(&t.client, &[note("hot", 0, "a")]).await;

    // 100 reads of one key: all of the table's traffic, at a rate above
    // half the (scaled) 10 RCU/s partition limit.
    let hot = t.client.clone().with_stats(scaled());
    for _ in 0..100 {
        hot.get(Note::key("hot", 0))
            .await
            .expect("get")
            .expect("found");
    }
    let report = hot.stats().unwrap().report();
    let finding = report
        .findings_of("hot partition")
        .next()
        .expect("hot partition");
    let Finding::HotPartition { key, .. } = finding else {
        unreachable!()
    };
    assert_eq!(key.key, KeyLabel::Raw(Note::pk_of("hot")));
    assert!(key.share > 0.99, "{report}");

    // The same reads spread over 100 keys: no key has a large share.
    let spread_client = t.client.clone().with_stats(scaled());
    for i in 0..100 {
        spread_client
            .get(Note::key(format!("u{i}"), 0))
            .await
            .expect("get");
    }
    assert!(!kinds(&spread_client).contains(&"hot partition"));

    // A large share of little traffic (against the real 3,000 RCU/s
    // limit) is not hot either.
    let slow = t.client.clone().with_stats(StatsConfig::default());
    for _ in 0..30 {
        slow.get(Note::key("hot", 0)).await.expect("get");
    }
    let report = slow.stats().unwrap().report();
    assert!(report.findings.is_empty(), "{report}");
    assert!(report.top_keys[0].share > 0.99);
}

#[tokio::test]
async fn throttled_keys_are_reported_with_their_reasons() {
    let t = notes_table().await;
    write_all(&t.client, &[note("busy", 0, "a"), note("calm", 0, "a")]).await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let client = Client::local(proxy.endpoint(), t.client.table()).with_stats(scaled());

    proxy.faults().script(
        Operation::GetItem,
        [Fault::Throttling, Fault::ProvisionedThroughputExceeded],
    );
    client
        .get(Note::key("busy", 0))
        .await
        .expect("retried")
        .expect("found");
    client
        .get(Note::key("calm", 0))
        .await
        .expect("get")
        .expect("found");

    let report = client.stats().unwrap().report();
    let throttled: Vec<&Finding> = report.findings_of("throttled").collect();
    assert_eq!(throttled.len(), 1, "{report}");
    let Finding::Throttled {
        key,
        throttles,
        reasons,
        ..
    } = throttled[0]
    else {
        unreachable!()
    };
    assert_eq!(key, &Some(KeyLabel::Raw(Note::pk_of("busy"))));
    assert_eq!(*throttles, 2);
    assert_eq!(reasons, &["Throttling", "ProvisionedThroughputExceeded"]);
    let get = &report.operations[0];
    assert_eq!((get.requests, get.throttles), (4, 2), "{report}");
}

#[tokio::test]
async fn scans_are_reported_and_queries_are_not() {
    let t = notes_table().await;
    write_all(
        &t.client,
        &(0..10).map(|i| note("u1", i, "a")).collect::<Vec<_>>(),
    )
    .await;

    let queries = t.client.clone().with_stats(scaled());
    queries
        .query(Note::primary("u1"))
        .all()
        .await
        .expect("query");
    assert!(kinds(&queries).is_empty());

    let scans = t.client.clone().with_stats(scaled());
    let all = scans.scan::<Note>().all().await.expect("scan");
    assert_eq!(all.len(), 10);
    let report = scans.stats().unwrap().report();
    let Some(Finding::Scan { stats }) = report.findings_of("scan").next() else {
        panic!("no scan finding:\n{report}")
    };
    assert_eq!(stats.scanned, 10);
    assert!(stats.read_units > 0.0, "capacity was asked for:\n{report}");
}

#[tokio::test]
async fn filter_waste_fires_when_most_of_the_read_is_thrown_away() {
    let t = notes_table().await;
    let notes: Vec<Note> = (0..200)
        .map(|i| note("u1", i, if i % 100 == 0 { "rare" } else { "common" }))
        .collect();
    write_all(&t.client, &notes).await;
    let f = Note::fields();

    let wasteful = t.client.clone().with_stats(scaled());
    let rare = (wasteful.query(Note::primary("u1")))
        .filter(f.tag.eq("rare".to_owned()))
        .all()
        .await
        .expect("query");
    assert_eq!(rare.len(), 2);
    let report = wasteful.stats().unwrap().report();
    let Some(Finding::FilterWaste {
        scanned, returned, ..
    }) = report.findings_of("filter waste").next()
    else {
        panic!("no filter waste:\n{report}")
    };
    assert_eq!((*scanned, *returned), (200, 2));

    let selective = t.client.clone().with_stats(scaled());
    (selective.query(Note::primary("u1")))
        .filter(f.tag.eq("common".to_owned()))
        .all()
        .await
        .expect("query");
    assert!(!kinds(&selective).contains(&"filter waste"));
}

#[tokio::test]
async fn unbounded_fan_out_fires_on_reading_every_page_without_a_limit() {
    let t = notes_table().await;
    let notes: Vec<Note> = (0..300).map(|i| note("big", i, "a")).collect();
    write_all(&t.client, &notes).await;
    write_all(&t.client, &[note("small", 0, "a")]).await;

    let unbounded = t.client.clone().with_stats(scaled());
    let all = unbounded
        .query(Note::primary("big"))
        .all()
        .await
        .expect("query");
    assert_eq!(all.len(), 300);
    let report = unbounded.stats().unwrap().report();
    let Some(Finding::UnboundedFanOut { calls, items, .. }) =
        report.findings_of("unbounded fan-out").next()
    else {
        panic!("no fan-out:\n{report}")
    };
    assert_eq!((*calls, *items), (1, 300));

    let paged = t.client.clone().with_stats(scaled());
    paged
        .query(Note::primary("big"))
        .page_size(50)
        .await
        .expect("page");
    paged
        .query(Note::primary("small"))
        .all()
        .await
        .expect("query");
    assert!(
        kinds(&paged).is_empty(),
        "{}",
        paged.stats().unwrap().report()
    );
}

#[tokio::test]
async fn items_near_the_size_limit_are_reported() {
    let t = notes_table().await;
    let client = t.client.clone().with_stats(scaled());
    client.put(&note("u1", 1, "a")).await.expect("small");
    assert!(kinds(&client).is_empty());

    let mut large = note("u1", 2, "a");
    large.body = "x".repeat(350 * 1024);
    client.put(&large).await.expect("large put");
    client.get(Note::key("u1", 2)).await.expect("large get");
    let report = client.stats().unwrap().report();
    let large: Vec<&Finding> = report.findings_of("large item").collect();
    assert_eq!(large.len(), 2, "the put and the get:\n{report}");
    for finding in large {
        let Finding::LargeItem { largest_bytes, .. } = finding else {
            unreachable!()
        };
        assert!(*largest_bytes > 350 * 1024);
    }
}

#[tokio::test]
async fn memory_stays_bounded_under_100k_distinct_keys() {
    use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
    let t = notes_table().await;
    let config = StatsConfig::default().max_keys(512);
    let cap = config.buckets * config.max_keys;
    let client = t.client.clone().with_stats(config);
    let sdk = client.sdk().clone();
    let table_name = client.table().to_owned();
    let key = |user: &str| {
        [
            ("pk".to_owned(), AttributeValue::S(Note::pk_of(user))),
            ("sk".to_owned(), AttributeValue::S("x".to_owned())),
        ]
        .into()
    };
    // 1,000 BatchGetItem requests of 100 keys (missing items, so they are
    // cheap), each with one key that recurs.
    let requests = (0..1000).map(|batch| {
        let mut keys: Vec<_> = (1..100)
            .map(|i| key(&format!("u{}", batch * 99 + i)))
            .collect();
        keys.push(key("recurring"));
        let (sdk, table_name) = (sdk.clone(), table_name.clone());
        async move {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .build()
                .unwrap();
            let out = sdk
                .batch_get_item()
                .request_items(table_name, request)
                .send()
                .await
                .expect("batch get");
            assert!(out.unprocessed_keys.unwrap_or_default().is_empty());
        }
    });
    stream::iter(requests)
        .buffer_unordered(8)
        .collect::<Vec<()>>()
        .await;

    let stats = client.stats().unwrap();
    assert!(
        stats.tracked_keys() <= cap,
        "{} > {cap}",
        stats.tracked_keys()
    );
    let report = stats.report();
    assert!(report.dropped_keys > 90_000, "{}", report.dropped_keys);
    assert_eq!(report.operations[0].requests, 1000);
    assert_eq!(
        report.top_keys[0].key,
        KeyLabel::Raw(Note::pk_of("recurring"))
    );
    assert_eq!(report.top_keys[0].requests, 1000);
}

#[tokio::test]
async fn hashed_keys_hide_the_values() {
    let t = notes_table().await;
    let config = scaled().key_mode(entity_client::stats::KeyMode::Hashed);
    let client = t.client.clone().with_stats(config);
    client.get(Note::key("secret-user", 0)).await.expect("get");
    let report = client.stats().unwrap().report();
    assert!(matches!(report.top_keys[0].key, KeyLabel::Hashed(_)));
    assert!(!report.to_string().contains("secret-user"), "{report}");
}

/// A client made recording after its parent ran a batch still records its
/// own batches: the batch SDK client is made again from the recording one.
#[tokio::test]
async fn a_recording_client_made_after_a_batch_records_its_batches() {
    use entity_tests::Order;
    let t = table(&[Order::MODEL]).await;
    let order = |id: &str| Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents: 1,
    };
    t.client.batch_write().put(&order("o1")).await.unwrap();

    let recording = t.client.clone().with_stats(scaled());
    recording.batch_write().put(&order("o2")).await.unwrap();

    let report = recording.stats().unwrap().report();
    let batches = report
        .operations
        .iter()
        .filter(|o| o.operation == Operation::BatchWriteItem)
        .map(|o| o.requests)
        .sum::<u64>();
    assert_eq!(batches, 1, "{report}");
}
