//! The client's own CPU against the raw SDK's, per item or request, side by
//! side in one run:
//!
//! * **building** the requests of a batch write, no I/O:
//!   `batch_write().put_all(&events)` (stamping, conversion, the limits
//!   check, key de-duplication) against a hand-written `to_item` +
//!   `PutRequest` + `WriteRequest` per event (target: at most 1.1x);
//! * **without a server**: the whole call, the client's and the
//!   hand-written raw SDK program's (`bench::raw`), both through one fake
//!   HTTP client that answers every request at once with a canned response
//!   (`bench::fake_http`), so the figure is the client's and the SDK's work
//!   alone: a batch write, single puts, gets, and a query's `all()` over a
//!   page of events (target: at most 1.05x each);
//! * **end to end**: the same four against the embedded server, which runs
//!   on a thread (and runtime) of its own, so the client thread's CPU is the
//!   client's, the SDK's and the HTTP stack's (target: at most 1.05x);
//!   wall time beside it for information.
//!
//! Contenders run on one current-thread runtime and are timed with that
//! thread's CPU clock: other processes on the machine, and the server, are
//! left out. Rounds alternate between the contenders, each going first in
//! turn, and the medians are compared.
//!
//! `cargo bench -p entity-tests --bench client_cpu` (a few minutes);
//! `cargo test --benches` (or `--quick`) runs every contender a little, the
//! ratios printed but not judged.

use entity_client::{BatchPolicy, Client, EmbeddedDynamo, Entity};
use entity_tests::bench::fake_http::FakeDynamo;
use entity_tests::bench::raw::{self, event, item_json, Event};
use entity_tests::bench::{alternating, median, quick, thread_cpu};
use std::cell::RefCell;
use std::future::Future;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How much each section does.
struct Plan {
    quick: bool,
    /// Rounds of the sections that send nothing over a socket.
    rounds: usize,
    /// Rounds of the end-to-end section.
    server_rounds: usize,
    /// Events per batch (and per query page without a server).
    batch: u32,
    /// Single puts or gets per sample.
    singles: u32,
    /// Events per batch and query partition end to end.
    server_batch: u32,
}

impl Plan {
    fn new() -> Self {
        match quick() {
            true => Self {
                quick: true,
                rounds: 1,
                server_rounds: 1,
                batch: 60,
                singles: 5,
                server_batch: 60,
            },
            false => Self {
                quick: false,
                rounds: 41,
                server_rounds: 9,
                batch: 1000,
                singles: 200,
                server_batch: 5000,
            },
        }
    }
}

/// One line of the table: median CPU per item or request of each contender.
struct Row {
    what: &'static str,
    ours: Duration,
    raw: Duration,
    /// Items or requests per sample.
    per: u32,
    target: f64,
    /// Median wall time of each, per item or request (end to end).
    wall: Option<(Duration, Duration)>,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.ours.as_secs_f64() / self.raw.as_secs_f64()
    }
}

/// The CPU time `work` takes on this thread (its output dropped inside).
async fn cpu(work: impl Future<Output = ()>) -> Duration {
    let start = thread_cpu();
    work.await;
    thread_cpu() - start
}

/// Runs `work`, adding its wall time to `samples`.
async fn wall(samples: &RefCell<Vec<Duration>>, work: impl Future<Output = ()>) {
    let start = Instant::now();
    work.await;
    samples.borrow_mut().push(start.elapsed());
}

/// `first` and `second` timed in alternating rounds: median thread CPU of
/// each.
async fn cpu_rounds<A, B>(
    rounds: usize,
    mut first: impl FnMut(usize) -> A,
    mut second: impl FnMut(usize) -> B,
) -> (Duration, Duration)
where
    A: Future<Output = ()>,
    B: Future<Output = ()>,
{
    alternating(
        rounds,
        async |round| cpu(first(round)).await,
        async |round| cpu(second(round)).await,
    )
    .await
}

/// Building a batch write's requests: ours (held by the builder, never
/// sent) against the hand-written requests.
async fn building(plan: &Plan, client: &Client, events: &[Event]) -> Row {
    let (ours, raw) = cpu_rounds(
        plan.rounds,
        |_| async {
            drop(black_box(client.batch_write().put_all(black_box(events))));
        },
        |_| async {
            let requests: Vec<_> = black_box(events).iter().map(raw::write_request).collect();
            black_box(requests);
        },
    )
    .await;
    Row {
        what: "build batch-write requests",
        ours,
        raw,
        per: plan.batch,
        target: 1.1,
        wall: None,
    }
}

/// A fake server's answers: every write accepted, every get finding an
/// event, every query one page of `page` events and no more.
fn fake(page: u32) -> FakeDynamo {
    let item = |seq| item_json(&event("acc-1", seq).to_item().expect("item"));
    let items: Vec<_> = (0..page).map(item).collect();
    let query = serde_json::json!({ "Items": items, "Count": page, "ScannedCount": page });
    FakeDynamo::default()
        .answer("PutItem", "{}")
        .answer("BatchWriteItem", r#"{"UnprocessedItems":{}}"#)
        .answer(
            "GetItem",
            serde_json::json!({ "Item": item(7) }).to_string(),
        )
        .answer("Query", query.to_string())
}

/// The four calls, ours and the raw program's, through `client`: rows named
/// `names` (batch write, put, get, query). `server` times wall time too.
async fn calls(
    plan: &Plan,
    client: &Client,
    rounds: usize,
    batch: u32,
    names: [&'static str; 4],
    server: bool,
) -> Vec<Row> {
    let (sdk, table) = (client.sdk(), client.table());
    let in_flight = BatchPolicy::default().concurrency;
    let walls = [RefCell::new(Vec::new()), RefCell::new(Vec::new())];
    let take_walls = || {
        let [ours, raw] = [0, 1].map(|side| walls[side].take());
        server.then(|| (median(ours), median(raw)))
    };
    let mut rows = Vec::new();
    let per_item = |ours: Duration, raw: Duration, per: u32, what, wall| Row {
        what,
        ours,
        raw,
        per,
        target: 1.05,
        wall,
    };

    // Batch writes: fresh partitions each round (a server keeps them).
    let batch_of = |prefix: &str, round| -> Vec<Event> {
        (0..batch)
            .map(|i| event(&format!("{prefix}-{round}"), i))
            .collect()
    };
    let (ours, raw) = cpu_rounds(
        rounds,
        |round| {
            let events = batch_of("b", round);
            wall(&walls[0], async move {
                let out = client.batch_write().put_all(&events).await.expect("batch");
                assert_eq!(out.written, events.len());
            })
        },
        |round| {
            let events = batch_of("r", round);
            wall(&walls[1], async move {
                raw::batch_write(sdk, table, &events, in_flight).await;
            })
        },
    )
    .await;
    rows.push(per_item(ours, raw, batch, names[0], take_walls()));

    // Single puts.
    let singles = plan.singles;
    let (ours, raw) = cpu_rounds(
        rounds,
        |round| {
            let events = batch_of("p", round);
            wall(&walls[0], async move {
                for event in &events[..singles as usize] {
                    client.put(event).await.expect("put");
                }
            })
        },
        |round| {
            let events = batch_of("q", round);
            wall(&walls[1], async move {
                for event in &events[..singles as usize] {
                    raw::put(sdk, table, event).await;
                }
            })
        },
    )
    .await;
    rows.push(per_item(ours, raw, singles, names[1], take_walls()));

    // Gets of events of the first batch-written partition.
    let (ours, raw) = cpu_rounds(
        rounds,
        |_| {
            wall(&walls[0], async move {
                for seq in 0..singles {
                    let found = client.get(Event::key("b-0", seq)).await.expect("get");
                    assert!(found.is_some());
                }
            })
        },
        |_| {
            wall(&walls[1], async move {
                for seq in 0..singles {
                    let found = raw::get(sdk, table, &Event::key("b-0", seq)).await;
                    assert!(found.is_some());
                }
            })
        },
    )
    .await;
    rows.push(per_item(ours, raw, singles, names[2], take_walls()));

    // A query of every event of the first batch-written partition (of the
    // fake's page, without a server).
    let partition = if server { "b-0" } else { "acc-1" };
    let pk = Event::pk_of(partition);
    let pk = &pk;
    let (ours, raw) = cpu_rounds(
        rounds,
        |_| {
            wall(&walls[0], async move {
                let events = client
                    .query(Event::primary(partition))
                    .all()
                    .await
                    .expect("query");
                assert_eq!(events.len(), batch as usize);
            })
        },
        |_| {
            wall(&walls[1], async move {
                assert_eq!(raw::query(sdk, table, pk).await, batch as usize);
            })
        },
    )
    .await;
    rows.push(per_item(ours, raw, batch, names[3], take_walls()));
    rows
}

fn print(plan: &Plan, rows: &[Row]) {
    println!(
        "== client CPU / raw SDK CPU, median thread CPU of alternating rounds ({} without a server, {} end to end) ==",
        plan.rounds, plan.server_rounds
    );
    println!(
        "{:<34} {:>12} {:>12} {:>7}  {:<9} verdict",
        "", "ours/unit", "raw/unit", "ratio", "target"
    );
    let per = |d: Duration, n: u32| d / n.max(1);
    for row in rows {
        let ratio = row.ratio();
        let verdict = match (plan.quick, ratio <= row.target) {
            (true, _) => "(quick run, not judged)",
            (false, true) => "PASS",
            (false, false) => "MISS",
        };
        println!(
            "{:<34} {:>12.2?} {:>12.2?} {:>6.3}x  {:<9} {verdict}",
            row.what,
            per(row.ours, row.per),
            per(row.raw, row.per),
            ratio,
            format!("<= {:.2}x", row.target),
        );
        if let Some((ours, raw)) = row.wall {
            println!(
                "{:<34} {:>12.2?} {:>12.2?} {:>6.3}x  (wall time, info)",
                "",
                per(ours, row.per),
                per(raw, row.per),
                ours.as_secs_f64() / raw.as_secs_f64()
            );
        }
    }
}

fn main() {
    let plan = Plan::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // The embedded server on a runtime and thread of its own: its work is
    // not the client thread's.
    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("server runtime");
    let server = server_runtime
        .block_on(EmbeddedDynamo::start())
        .expect("server");

    let mut rows = Vec::new();
    runtime.block_on(async {
        let client = Client::new(fake(plan.batch).sdk_client(), "bench");
        let events: Vec<Event> = (0..plan.batch).map(|i| event("acc-1", i)).collect();
        rows.push(building(&plan, &client, &events).await);
        let names = [
            "no server: batch write, per item",
            "no server: put, per request",
            "no server: get, per request",
            "no server: query all, per item",
        ];
        rows.extend(calls(&plan, &client, plan.rounds, plan.batch, names, false).await);

        let client = server.client("bench-cpu");
        client.create_table(&[Event::MODEL]).await.expect("table");
        let names = [
            "server: batch write, per item",
            "server: put, per request",
            "server: get, per request",
            "server: query all, per item",
        ];
        let (rounds, batch) = (plan.server_rounds, plan.server_batch);
        rows.extend(calls(&plan, &client, rounds, batch, names, true).await);
    });
    print(&plan, &rows);
}
