//! What write sharding costs a reader: the same 2,000 items in one
//! unsharded GSI partition and spread over 10 shards, read whole with
//! `client.query(..).all()`, side by side in one run against the same
//! embedded server. The sharded read sends a page request to every shard at
//! once and merges them in sort key order; the unsharded one reads one
//! partition page by page. 15 rounds alternate between the two, each going
//! first in turn, and the medians are compared.
//! `cargo bench -p entity-tests --bench sharding`.

use entity_client::{EmbeddedDynamo, Entity, KeyPart};
use entity_tests::bench::{alternating, quick};
use std::time::Instant;

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Open,
}

/// The same layout twice: one index partition per stage, or ten.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(job_id)]
#[sk()]
#[index(by_stage(gsi = "gsi1", pk(stage), sk(due, job_id)))]
struct Plain {
    job_id: String,
    stage: Stage,
    due: u32,
    title: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(job_id)]
#[sk()]
#[index(by_stage(gsi = "gsi1", pk(stage, shards = 10), sk(due, job_id)))]
struct Sharded {
    job_id: String,
    stage: Stage,
    due: u32,
    title: String,
}

const ITEMS: u32 = 2_000;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let rounds = if quick { 1 } else { 15 };
    let server = EmbeddedDynamo::start().await.expect("server");
    let plain_client = server.client("bench-plain");
    plain_client
        .create_table(&[Plain::MODEL])
        .await
        .expect("table");
    let sharded_client = server.client("bench-sharded");
    sharded_client
        .create_table(&[Sharded::MODEL])
        .await
        .expect("table");
    let plain: Vec<Plain> = (0..ITEMS)
        .map(|i| Plain {
            job_id: format!("j-{i:05}"),
            stage: Stage::Open,
            due: (i * 7919) % 1000,
            title: format!("job number {i} with a title of some length"),
        })
        .collect();
    let sharded: Vec<Sharded> = plain
        .iter()
        .map(|p| Sharded {
            job_id: p.job_id.clone(),
            stage: p.stage,
            due: p.due,
            title: p.title.clone(),
        })
        .collect();
    plain_client
        .batch_write()
        .put_all(&plain)
        .await
        .expect("seed");
    sharded_client
        .batch_write()
        .put_all(&sharded)
        .await
        .expect("seed");

    let read_plain = async || {
        let items = plain_client
            .query(Plain::by_stage(Stage::Open))
            .all()
            .await
            .expect("query");
        assert_eq!(items.len(), ITEMS as usize);
        items
    };
    let read_sharded = async || {
        let items = sharded_client
            .query(Sharded::by_stage(Stage::Open))
            .all()
            .await
            .expect("query");
        assert_eq!(items.len(), ITEMS as usize);
        items
    };
    // Same items, same order.
    let (a, b) = (read_plain().await, read_sharded().await);
    assert!(a.iter().zip(&b).all(|(a, b)| a.job_id == b.job_id));

    let (unsharded, sharded) = alternating(
        rounds,
        async |_| {
            let t = Instant::now();
            read_plain().await;
            t.elapsed()
        },
        async |_| {
            let t = Instant::now();
            read_sharded().await;
            t.elapsed()
        },
    )
    .await;
    println!(
        "== query(..).all() of {ITEMS} items, one partition vs 10 shards, same embedded server, median of {rounds} alternating rounds =="
    );
    println!("unsharded {unsharded:>9.1?} | sharded {sharded:>9.1?}");
    let ratio = sharded.as_secs_f64() / unsharded.as_secs_f64();
    println!("query all: sharded/unsharded = {ratio:5.3}x");
}
