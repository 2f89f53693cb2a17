//! Capacity rate limits (`RateLimit`): bulk work held to a budget of
//! capacity units per second, charged with what the server reports each
//! request consumed.
//!
//! Sizes are small so each test takes a second or two; what is asserted is
//! behaviour (the rate is held near its budget, not at several times it;
//! segments share one budget; an operation's limit wins; throttles step an
//! adaptive budget down and quiet steps it back up; nothing is dropped),
//! with room for a loaded machine. Exact targets are the bench's
//! (`tests/benches/rate_limit.rs`).

use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{BatchPolicy, Client, Entity, RateLimit};
use entity_tests::harness::{table, TestTable};
use std::time::{Duration, Instant};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rl")]
#[pk(id)]
#[sk()]
struct Doc {
    id: u32,
    body: String,
}

/// A tenant's entity, for the tenant scope.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rl", name = "Member", tenant = org)]
#[pk(format = "MEMBER#{org}")]
#[sk(id)]
struct Member {
    org: String,
    id: u32,
    body: String,
}

/// An item of about 900 bytes: one write unit.
fn doc(id: u32) -> Doc {
    Doc {
        id,
        body: "x".repeat(900),
    }
}

fn docs(n: u32) -> impl Iterator<Item = Doc> + Send + 'static {
    (0..n).map(doc)
}

/// The rate is held: `units` consumed over `elapsed`, of which `first`
/// (the first request's, which no budget can hold back: what a request
/// consumes is known once it is answered) passed at once. At most a
/// little over the budget, and not starved.
fn assert_held(units: f64, first: f64, elapsed: Duration, target: f64, what: &str) {
    let achieved = (units - first) / elapsed.as_secs_f64();
    eprintln!(
        "{what}: {units} units in {elapsed:.2?}, {achieved:.1} units/s after the first request, budget {target:.1}"
    );
    assert!(
        achieved <= target * 1.2 && achieved >= target * 0.4,
        "{what}: {achieved:.1} units/s against a budget of {target}"
    );
}

#[tokio::test]
async fn a_batch_write_is_held_to_its_write_rate_as_the_server_reports_it() {
    let t = table(&[Doc::MODEL]).await;
    let limit = RateLimit::fixed(f64::INFINITY, 100.0);
    let started = Instant::now();
    let (out, cost) = t
        .client
        .measure(|c| async move {
            c.batch_write()
                .put_iter(docs(200))
                .rate_limit(limit.clone())
                .await
                .map(|out| (out, limit))
        })
        .await;
    let elapsed = started.elapsed();
    let (out, limit) = out.unwrap();
    assert!(out.is_complete() && out.written == 200, "{out:?}");
    // Charged with what the server reported, which is what the client's
    // statistics saw.
    assert_eq!(cost.write_units, 200.0, "{cost}");
    assert_eq!(limit.consumed().write_units, cost.write_units);
    assert_held(cost.write_units, 25.0, elapsed, 100.0, "batch write");
}

async fn stored(t: &TestTable, n: u32) {
    let out = t.client.batch_write().put_iter(docs(n)).await.unwrap();
    assert!(out.is_complete());
}

#[tokio::test]
async fn a_scan_is_held_to_its_read_rate_and_parallel_segments_share_one_budget() {
    let t = table(&[Doc::MODEL]).await;
    stored(&t, 400).await;
    let (all, unlimited) = t
        .client
        .measure(|c| async move { c.scan::<Doc>().page_size(25).all().await })
        .await;
    assert_eq!(all.unwrap().len(), 400);
    // A budget that makes the scan last about a second and a half.
    let target = unlimited.read_units / 1.5;

    for segments in [1, 4] {
        let limit = RateLimit::fixed(target, f64::INFINITY);
        let bulk = t.client.with_rate_limit(limit.clone());
        let started = Instant::now();
        let (read, cost) = bulk
            .measure(
                |c| async move { c.scan::<Doc>().segments(segments).page_size(25).all().await },
            )
            .await;
        let elapsed = started.elapsed();
        assert_eq!(read.unwrap().len(), 400, "nothing dropped");
        assert!(
            (limit.consumed().read_units - cost.read_units).abs() < 1e-9,
            "{cost}"
        );
        // Four segments with a budget each would read at four times it.
        let page = unlimited.read_units / 16.0;
        assert_held(
            cost.read_units,
            page,
            elapsed,
            target,
            &format!("scan in {segments} segments"),
        );
    }
}

#[tokio::test]
async fn batch_gets_wait_for_the_read_budget_chunk_by_chunk() {
    let t = table(&[Doc::MODEL]).await;
    stored(&t, 400).await;
    let keys = || (0..400).map(Doc::key);
    let (read, unlimited) = t
        .client
        .measure(|c| async move { c.batch_get(keys()).await })
        .await;
    assert_eq!(read.unwrap().items.len(), 400);
    // Four chunks of 100; a budget that makes them last about a second and a half.
    let target = unlimited.read_units / 1.5;
    let limit = RateLimit::fixed(target, f64::INFINITY);
    let bulk = t.client.with_rate_limit(limit.clone());
    let started = Instant::now();
    let (read, cost) = bulk
        .measure(|c| async move { c.batch_get(keys()).await })
        .await;
    let elapsed = started.elapsed();
    assert_eq!(read.unwrap().items.len(), 400, "nothing dropped");
    assert!(
        (limit.consumed().read_units - cost.read_units).abs() < 1e-9,
        "{cost}"
    );
    let chunk = unlimited.read_units / 4.0;
    assert_held(cost.read_units, chunk, elapsed, target, "batch get");
}

#[tokio::test]
async fn an_operations_limit_takes_the_place_of_the_clients() {
    let t = table(&[Doc::MODEL]).await;
    // A client held to 5 write units a second would take 40 s for 200.
    let slow = RateLimit::fixed(5.0, 5.0);
    let client = t.client.with_rate_limit(slow.clone());
    let fast = RateLimit::fixed(f64::INFINITY, 400.0);
    let started = Instant::now();
    let out = client
        .batch_write()
        .put_iter(docs(200))
        .rate_limit(fast.clone())
        .await
        .unwrap();
    assert!(out.is_complete());
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(fast.consumed().write_units, 200.0);
    assert_eq!(slow.consumed().write_units, 0.0, "charged to one limit");

    // Unlimited on a limited client.
    let started = Instant::now();
    let read = client
        .scan::<Doc>()
        .page_size(10)
        .rate_limit(RateLimit::unlimited())
        .all()
        .await
        .unwrap();
    assert_eq!(read.len(), 200);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(slow.consumed().read_units, 0.0);
}

/// A note as first written; its default key names version 1.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rl", name = "Note", version = 1)]
#[pk(id)]
#[sk()]
struct NoteV1 {
    id: u32,
    body: String,
}

/// Version 2: a migration moves every version 1 item to its new key (a
/// transaction per item).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rl", name = "Note", version = 2, upgrade_from = NoteV1)]
#[pk(id)]
#[sk()]
struct Note {
    id: u32,
    body: String,
    done: bool,
}

impl From<NoteV1> for Note {
    fn from(v1: NoteV1) -> Self {
        Note {
            id: v1.id,
            body: v1.body,
            done: false,
        }
    }
}

#[tokio::test]
async fn a_migration_and_its_rewrites_are_held_to_the_budget() {
    let t = table(&[NoteV1::MODEL, Note::MODEL]).await;
    let old = (0..60).map(|id| NoteV1 {
        id,
        body: "z".repeat(200),
    });
    assert!(t
        .client
        .batch_write()
        .put_iter(old)
        .await
        .unwrap()
        .is_complete());
    let limit = RateLimit::fixed(f64::INFINITY, 40.0);
    let started = Instant::now();
    let report = t
        .client
        .migrate::<Note>()
        .segments(2)
        .page_size(10)
        .rate_limit(limit.clone())
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert_eq!((report.counts.scanned, report.counts.rewritten), (60, 60));
    let consumed = limit.consumed();
    assert!(consumed.read_units > 0.0, "{consumed:?}");
    // Each segment's first page of rewrites (10 moves, a third of the
    // whole) runs before anything is known of its cost.
    let first = consumed.write_units / 3.0;
    assert_held(
        consumed.write_units,
        first,
        elapsed,
        40.0,
        "migration writes",
    );
    assert_eq!(t.client.scan::<Note>().all().await.unwrap().len(), 60);
}

#[tokio::test]
async fn every_scope_is_held_to_the_clients_limit() {
    let t = table(&[Doc::MODEL, Member::MODEL]).await;
    let limit = RateLimit::fixed(f64::INFINITY, 400.0);
    let client = t.client.with_rate_limit(limit.clone());

    // A tenant's batch, sent as transactions of 100 writes (twice the
    // units of plain writes).
    let acme = client.tenant("acme");
    let members = (0..300).map(|id| Member {
        org: "acme".into(),
        id,
        body: "y".repeat(900),
    });
    let started = Instant::now();
    let (out, cost) = acme
        .measure(|c| async move { c.batch_write().put_iter(members).await })
        .await;
    let elapsed = started.elapsed();
    let out = out.unwrap();
    assert!(out.is_complete() && out.written == 300, "{out:?}");
    let tenant_units = limit.consumed().write_units;
    assert_eq!(
        tenant_units, cost.write_units,
        "the limit charges what the server reported"
    );
    // DynamoDB's rule, which the embedded server follows: a transactional
    // write costs two units per KB. DynamoDB Local reports a transaction's
    // capacity its own way (a few units), which the limit then charges.
    if tenant_units == 600.0 {
        assert_held(tenant_units, 200.0, elapsed, 400.0, "tenant batch");
    } else {
        assert!(tenant_units > 0.0, "{tenant_units}");
    }

    // The cross-tenant scope, on a budget of its own: one the tenant's
    // batch left unspent (DynamoDB Local charges its transactions a few
    // units) would let a burst through at first.
    let limit = RateLimit::fixed(f64::INFINITY, 400.0);
    let client = t.client.with_rate_limit(limit.clone());
    let started = Instant::now();
    let out = client
        .cross_tenant()
        .batch_write()
        .put_iter(docs(400))
        .await
        .unwrap();
    assert!(out.is_complete());
    let units = limit.consumed().write_units;
    assert_eq!(units, 400.0);
    let elapsed = started.elapsed();
    assert_held(units, 25.0, elapsed, 400.0, "cross-tenant batch");
    let read = client.cross_tenant().scan::<Member>().all().await.unwrap();
    assert_eq!(read.len(), 300);
}

#[tokio::test]
async fn an_adaptive_limit_steps_down_on_throttles_and_back_up_without_dropping_anything() {
    let t = table(&[Doc::MODEL]).await;
    let proxy = FaultProxy::start(&t.endpoint()).await.expect("proxy");
    let name = t.client.table().to_owned();
    let limit = RateLimit::adaptive(f64::INFINITY, 400.0).quiet_period(Duration::from_millis(100));
    let client = Client::new(
        entity_tests::harness::fast_sdk(proxy.endpoint(), &name),
        name,
    )
    .with_batch_policy(BatchPolicy {
        max_attempts: 8,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
        concurrency: 4,
    })
    .with_rate_limit(limit.clone());

    // Throttled: the SDK's retries of whole batches.
    proxy
        .faults()
        .script(Operation::BatchWriteItem, [Fault::Throttling; 3]);
    let out = client.batch_write().put_iter(docs(100)).await.unwrap();
    assert!(
        out.is_complete() && out.written == 100,
        "nothing dropped: {out:?}"
    );
    assert!(limit.throttles() >= 3, "{}", limit.throttles());
    let stepped_down = limit.rates().write_units;
    assert!(stepped_down < 400.0, "{stepped_down}");
    assert!(stepped_down >= 40.0, "not below the floor: {stepped_down}");

    // Quiet: back up to the ceiling.
    let out = client
        .batch_write()
        .put_iter((100..400).map(doc))
        .await
        .unwrap();
    assert!(out.is_complete() && out.written == 300, "{out:?}");
    assert_eq!(limit.rates().write_units, 400.0);
    let stored = t.client.scan::<Doc>().all().await.unwrap();
    assert_eq!(stored.len(), 400);
}
