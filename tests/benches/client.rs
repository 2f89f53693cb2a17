//! Client overhead against the same embedded server, side by side in one
//! run:
//!
//! * querying 10,000 items of one partition through `Client::query(..).all()`
//!   versus a hand-written pagination loop over the raw SDK (target: at most
//!   5% slower);
//! * batch-writing 10,000 items through `Client::batch_write` versus a
//!   hand-written raw-SDK `BatchWriteItem` loop (chunks of 25, unprocessed
//!   items resent, as many chunks in flight as the client's default policy;
//!   target: at most 5% slower), and versus a sequential `PutItem` loop
//!   (target: at least 4x faster).
//!
//! Rounds alternate between the contenders, which take turns going first (the
//! table grows as the run goes on), and the medians are compared, so machine
//! noise hits both alike. The sequential contender writes a quarter as many
//! items and is compared per item. `cargo bench -p entity-tests --bench client`.

use entity_client::{EmbeddedDynamo, Entity};
use entity_tests::bench::raw::{self, event, Event};
use entity_tests::bench::{alternating, median, quick};
use std::time::Instant;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let n: u32 = if quick { 300 } else { 10_000 };
    let rounds = if quick { 1 } else { 9 };
    let server = EmbeddedDynamo::start().await.expect("server");

    // Query: one partition of `n` items.
    let client = server.client("bench-query");
    client.create_table(&[Event::MODEL]).await.expect("table");
    let events: Vec<Event> = (0..n).map(|i| event("acc-1", i)).collect();
    let out = client.batch_write().put_all(&events).await.expect("seed");
    assert!(out.unprocessed.is_empty());
    let pk = Event::pk_of("acc-1");
    let (query, raw_query) = alternating(
        rounds,
        async |_| {
            let t = Instant::now();
            let items = client
                .query(Event::primary("acc-1"))
                .all()
                .await
                .expect("query");
            let elapsed = t.elapsed();
            assert_eq!(items.len(), n as usize);
            elapsed
        },
        async |_| {
            let t = Instant::now();
            let count = raw::query(client.sdk(), client.table(), &pk).await;
            let elapsed = t.elapsed();
            assert_eq!(count, n as usize);
            elapsed
        },
    )
    .await;

    // Writes: `n` items each way, into fresh partitions.
    let (mut batch, mut raw_batch, mut sequential) = (Vec::new(), Vec::new(), Vec::new());
    let writer = server.client("bench-write");
    writer.create_table(&[Event::MODEL]).await.expect("table");
    let in_flight = entity_client::BatchPolicy::default().concurrency;
    for round in 0..rounds {
        for turn in [round % 2, 1 - round % 2] {
            if turn == 0 {
                let items: Vec<Event> = (0..n).map(|i| event(&format!("b-{round}"), i)).collect();
                let t = Instant::now();
                let out = writer.batch_write().put_all(&items).await.expect("batch");
                batch.push(t.elapsed());
                assert_eq!((out.written, out.unprocessed.len()), (n as usize, 0));
            } else {
                let items: Vec<Event> = (0..n).map(|i| event(&format!("r-{round}"), i)).collect();
                let t = Instant::now();
                raw::batch_write(writer.sdk(), writer.table(), &items, in_flight).await;
                raw_batch.push(t.elapsed());
            }
        }
        if round % 3 != 0 {
            continue;
        }
        let items: Vec<Event> = (0..n / 4)
            .map(|i| event(&format!("s-{round}"), i))
            .collect();
        let t = Instant::now();
        for item in &items {
            raw::put(writer.sdk(), writer.table(), item).await;
        }
        sequential.push(t.elapsed());
    }
    let (batch, raw_batch, sequential) = (median(batch), median(raw_batch), median(sequential));

    println!("== client vs raw SDK, same embedded server, {n} items, median of {rounds} alternating rounds ==");
    println!(
        "query all     client {:>9.1?} | raw pagination loop {:>9.1?}",
        query, raw_query
    );
    println!(
        "write all     batch  {:>9.1?} | raw batch loop {:>9.1?} | sequential PutItem {:>9.1?} for {} items",
        batch, raw_batch, sequential, n / 4
    );
    let query_ratio = query.as_secs_f64() / raw_query.as_secs_f64();
    let batch_ratio = batch.as_secs_f64() / raw_batch.as_secs_f64();
    let write_ratio = 4.0 * sequential.as_secs_f64() / batch.as_secs_f64();
    let verdict = |ok: bool| {
        if quick {
            "(quick run, not judged)"
        } else if ok {
            "PASS"
        } else {
            "MISS"
        }
    };
    println!(
        "query: client/raw loop           = {query_ratio:5.3}x (target <= 1.05x) {}",
        verdict(query_ratio <= 1.05)
    );
    println!(
        "batch write: client/raw loop     = {batch_ratio:5.3}x (target <= 1.05x) {}",
        verdict(batch_ratio <= 1.05)
    );
    println!(
        "batch write: sequential/batch    = {write_ratio:5.2}x (target >= 4x)    {}",
        verdict(write_ratio >= 4.0)
    );
}
