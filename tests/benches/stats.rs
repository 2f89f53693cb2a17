//! What recording request statistics costs on the query path, side by side
//! in one run against the same embedded server: the same queries through a
//! client without statistics and through the same client
//! `.with_stats(StatsConfig::default())` (the interceptor, the request facts,
//! `ReturnConsumedCapacity: TOTAL` and the server's answer to it, the
//! window update). Target: at most 3% slower.
//!
//! Each round sends 100 queries of 10-item partitions (small queries, where
//! a fixed per-request cost shows most); 41 short rounds alternate between
//! the contenders, each going first in turn, and the medians are compared:
//! short rounds keep a burst of machine noise inside one round.
//! `cargo bench -p entity-tests --bench stats`.

use entity_client::{EmbeddedDynamo, Entity, StatsConfig};
use entity_tests::bench::{alternating, quick};
use std::time::Instant;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(account)]
#[sk(seq)]
struct Event {
    account: String,
    seq: u32,
    kind: String,
    amount: i64,
}

const PARTITIONS: u32 = 100;
const ITEMS: u32 = 10;

async fn queries(client: &entity_client::Client, count: u32) {
    for i in 0..count {
        let account = format!("acc-{}", i % PARTITIONS);
        let items = client
            .query(Event::primary(account))
            .all()
            .await
            .expect("query");
        assert_eq!(items.len(), ITEMS as usize);
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let (rounds, per_round) = if quick { (1, 20) } else { (41, 100) };
    let server = EmbeddedDynamo::start().await.expect("server");
    let plain = server.client("bench-stats");
    plain.create_table(&[Event::MODEL]).await.expect("table");
    let events: Vec<Event> = (0..PARTITIONS)
        .flat_map(|p| {
            (0..ITEMS).map(move |seq| Event {
                account: format!("acc-{p}"),
                seq,
                kind: "credit".into(),
                amount: i64::from(seq) * 7,
            })
        })
        .collect();
    plain.batch_write().put_all(&events).await.expect("seed");
    let recorded = plain.clone().with_stats(StatsConfig::default());
    // Warm both (connections, the server's caches).
    queries(&plain, 50).await;
    queries(&recorded, 50).await;

    let (without, with) = alternating(
        rounds,
        async |_| {
            let t = Instant::now();
            queries(&plain, per_round).await;
            t.elapsed()
        },
        async |_| {
            let t = Instant::now();
            queries(&recorded, per_round).await;
            t.elapsed()
        },
    )
    .await;

    let report = recorded.stats().expect("stats").report();
    let query = &report.operations[0];
    println!(
        "== query path with and without statistics, same embedded server, {per_round} queries of {ITEMS} items, median of {rounds} alternating rounds =="
    );
    println!("without stats {without:>9.1?} | with stats {with:>9.1?}");
    println!(
        "recorded: {} Query requests, {:.1} RCU, {} keys tracked",
        query.requests, query.read_units, report.tracked_keys
    );
    let ratio = with.as_secs_f64() / without.as_secs_f64();
    let verdict = if quick {
        "(quick run, not judged)"
    } else if ratio <= 1.03 {
        "PASS"
    } else {
        "MISS"
    };
    println!("query: with stats/without = {ratio:5.3}x (target <= 1.03x) {verdict}");
}
