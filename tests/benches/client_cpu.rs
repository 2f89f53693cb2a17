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
//!   alone: a batch write with `put_all`, which builds every request
//!   before sending any (an error in one is the batch's, and nothing is
//!   sent), against a raw program that does the same, and with `put_iter`,
//!   which converts each chunk's entities as it builds the chunk, against
//!   one that builds each chunk as it sends it; single puts, gets, and a
//!   query's `all()` over a page of events (target: at most 1.05x each).
//!   The raw column of the two batch rows shows what building every
//!   request first costs a program (its items are no longer in the cache
//!   when they are sent);
//! * **end to end**: the same five against the embedded server, which runs
//!   on a thread (and runtime) of its own, so the client thread's CPU is the
//!   client's, the SDK's and the HTTP stack's (target: at most 1.05x);
//!   wall time beside it for information.
//!
//! Contenders run on one current-thread runtime and are timed with that
//! thread's CPU clock: the server's work is left out, and so is the time
//! other processes hold the cores (not what they do to the caches). Rounds
//! alternate between the contenders, each going first in turn; a row's
//! ratio is the median of the rounds' ratios, so a load that comes and goes
//! during the run cancels out, and the medians per item are printed beside
//! it.
//!
//! `cargo bench -p entity-tests --bench client_cpu` (about a minute); an
//! argument measures only the rows whose name holds it (`-- "no server"`,
//! `-- put`), or that are named exactly what follows a `=`. `cargo test
//! --benches` (or `--quick`) runs every contender a little, the ratios
//! printed but not judged.

use entity_client::{BatchPolicy, Client, EmbeddedDynamo, Entity};
use entity_tests::bench::fake_http::FakeDynamo;
use entity_tests::bench::raw::{self, event, item_json, Event};
use entity_tests::bench::{alternating_pairs, median, median_ratio, quick, thread_cpu};
use std::cell::RefCell;
use std::future::Future;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How much each section does.
struct Plan {
    quick: bool,
    /// Only the rows whose name holds this (the first argument that is not
    /// a flag: `cargo bench --bench client_cpu -- "no server: put"`).
    only: Option<String>,
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
        let only = std::env::args().skip(1).find(|a| !a.starts_with("--"));
        match quick() {
            true => Self {
                only,
                quick: true,
                rounds: 1,
                server_rounds: 1,
                batch: 60,
                singles: 5,
                server_batch: 60,
            },
            false => Self {
                only,
                quick: false,
                rounds: 61,
                server_rounds: 11,
                batch: 1000,
                singles: 200,
                server_batch: 5000,
            },
        }
    }
}

impl Plan {
    /// Whether the row named `what` is measured: its name holds the
    /// filter, or is the filter after a `=`.
    fn wants(&self, what: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| match only.strip_prefix('=') {
                Some(exact) => what == exact,
                None => what.contains(only),
            })
    }
}

/// One line of the table: each round's CPU time of the two contenders, and
/// their wall time end to end.
struct Row {
    what: &'static str,
    /// Ours and the raw program's, round by round.
    cpu: Vec<(Duration, Duration)>,
    /// Items or requests per sample.
    per: u32,
    target: f64,
    wall: Option<Vec<(Duration, Duration)>>,
}

/// Median time per item or request of each side, and the median ratio.
fn summary(pairs: &[(Duration, Duration)], per: u32) -> (Duration, Duration, f64) {
    let (ours, raw) = pairs.iter().copied().unzip();
    let per = per.max(1);
    (median(ours) / per, median(raw) / per, median_ratio(pairs))
}

/// The CPU time `work` takes on this thread (its output dropped inside).
async fn cpu(work: impl Future<Output = ()>) -> Duration {
    let start = thread_cpu();
    Counted(std::pin::pin!(work)).await;
    thread_cpu() - start
}

/// A contender's work, polled through one function that is never inlined:
/// what a profiler told to count inside it (`--toggle-collect`) counts.
struct Counted<'a, F>(std::pin::Pin<&'a mut F>);

impl<F: Future<Output = ()>> Future for Counted<'_, F> {
    type Output = ();

    #[inline(never)]
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

/// Runs `work`, adding its wall time to `samples`.
async fn wall(samples: &RefCell<Vec<Duration>>, work: impl Future<Output = ()>) {
    let start = Instant::now();
    work.await;
    samples.borrow_mut().push(start.elapsed());
}

/// `first` and `second` timed in alternating rounds: each round's thread
/// CPU time of each. With `CLIENT_CPU_ONLY` set to `ours` or `raw`, only
/// that one runs (the other's time is zero): a profiler then counts each
/// side's work apart (`scripts/instructions.sh`).
async fn cpu_rounds<A, B>(
    rounds: usize,
    mut first: impl FnMut(usize) -> A,
    mut second: impl FnMut(usize) -> B,
) -> Vec<(Duration, Duration)>
where
    A: Future<Output = ()>,
    B: Future<Output = ()>,
{
    let only = std::env::var("CLIENT_CPU_ONLY").ok();
    let runs = |side: &str| only.as_deref().is_none_or(|only| only == side);
    let (ours, raw) = (runs("ours"), runs("raw"));
    alternating_pairs(
        rounds,
        async |round| match ours {
            true => cpu(first(round)).await,
            false => Duration::ZERO,
        },
        async |round| match raw {
            true => cpu(second(round)).await,
            false => Duration::ZERO,
        },
    )
    .await
}

/// The row of [`building`].
const BUILDING: &str = "build batch-write requests";

/// Building a batch write's requests: ours (held by the builder, never
/// sent) against the hand-written requests.
async fn building(plan: &Plan, client: &Client, events: &[Event]) -> Row {
    let cpu = cpu_rounds(
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
        what: BUILDING,
        cpu,
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

/// The calls, ours and the raw program's, through `client`: rows named
/// `names` (batch write with `put_all`, with `put_iter`, put, get, query),
/// those the plan wants. `server` times wall time too.
async fn calls(
    plan: &Plan,
    client: &Client,
    rounds: usize,
    batch: u32,
    names: [&'static str; 5],
    server: bool,
) -> Vec<Row> {
    let (sdk, table) = (client.sdk(), client.table());
    let in_flight = BatchPolicy::default().concurrency;
    let walls = [RefCell::new(Vec::new()), RefCell::new(Vec::new())];
    let take_walls = || {
        let [ours, raw] = [0, 1].map(|side| walls[side].take());
        server.then(|| ours.into_iter().zip(raw).collect())
    };
    let mut rows = Vec::new();
    let mut push = |cpu, per: u32, what| {
        rows.push(Row {
            what,
            cpu,
            per,
            target: 1.05,
            wall: take_walls(),
        })
    };
    // Fresh partitions for each round's writes (a server keeps them); the
    // gets and the query read partition `b-0`, written here first.
    let batch_of = |prefix: &str, round| -> Vec<Event> {
        (0..batch)
            .map(|i| event(&format!("{prefix}-{round}"), i))
            .collect()
    };
    if server {
        let out = client.batch_write().put_all(&batch_of("b", 0)).await;
        assert!(out.expect("seed").is_complete());
    }
    let singles = plan.singles;

    if plan.wants(names[0]) {
        let cpu = cpu_rounds(
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
                    raw::batch_write_built(sdk, table, &events, in_flight).await;
                })
            },
        )
        .await;
        push(cpu, batch, names[0]);
    }

    // `put_iter` converts each chunk's entities as the chunk is built, as
    // this raw program does.
    if plan.wants(names[1]) {
        let cpu = cpu_rounds(
            rounds,
            |round| {
                let events = batch_of("i", round);
                wall(&walls[0], async move {
                    let out = client.batch_write().put_iter(events).await.expect("batch");
                    assert_eq!(out.written, batch as usize);
                })
            },
            |round| {
                let events = batch_of("j", round);
                wall(&walls[1], async move {
                    raw::batch_write(sdk, table, &events, in_flight).await;
                })
            },
        )
        .await;
        push(cpu, batch, names[1]);
    }

    if plan.wants(names[2]) {
        let cpu = cpu_rounds(
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
        push(cpu, singles, names[2]);
    }

    if plan.wants(names[3]) {
        let cpu = cpu_rounds(
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
        push(cpu, singles, names[3]);
    }

    // Without a server, the fake answers with its page whatever the
    // partition.
    if plan.wants(names[4]) {
        let pk = Event::pk_of("b-0");
        let pk = &pk;
        let cpu = cpu_rounds(
            rounds,
            |_| {
                wall(&walls[0], async move {
                    let events = client
                        .query(Event::primary("b-0"))
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
        push(cpu, batch, names[4]);
    }
    rows
}

fn print(plan: &Plan, rows: &[Row]) {
    println!(
        "== client / raw SDK: thread CPU per item or request, medians of {} alternating rounds without a server, {} end to end; ratio: median of the rounds' ratios ==",
        plan.rounds, plan.server_rounds
    );
    println!(
        "{:<34} {:>12} {:>12} {:>7}  {:<9} verdict",
        "", "ours/unit", "raw/unit", "ratio", "target"
    );
    for row in rows {
        let (ours, raw, ratio) = summary(&row.cpu, row.per);
        // `CLIENT_CPU_ONLY` runs one side: there is no ratio.
        let one_side = ours.is_zero() || raw.is_zero();
        let verdict = match (one_side, plan.quick, ratio <= row.target) {
            (true, ..) => "(one side only, not judged)",
            (_, true, _) => "(quick run, not judged)",
            (_, false, true) => "PASS",
            (_, false, false) => "MISS",
        };
        let ratio = match one_side {
            true => "-".to_owned(),
            false => format!("{ratio:.3}x"),
        };
        println!(
            "{:<34} {ours:>12.2?} {raw:>12.2?} {ratio:>7}  {:<9} {verdict}",
            row.what,
            format!("<= {:.2}x", row.target),
        );
        // Empty when one side ran alone (`CLIENT_CPU_ONLY`).
        if let Some(wall) = row.wall.as_ref().filter(|wall| !wall.is_empty()) {
            let (ours, raw, ratio) = summary(wall, row.per);
            println!(
                "{:<34} {ours:>12.2?} {raw:>12.2?} {ratio:>6.3}x  (wall time, info)",
                ""
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
        if plan.wants(BUILDING) {
            let events: Vec<Event> = (0..plan.batch).map(|i| event("acc-1", i)).collect();
            rows.push(building(&plan, &client, &events).await);
        }
        let names = [
            "no server: batch put_all, per item",
            "no server: batch put_iter, per item",
            "no server: put, per request",
            "no server: get, per request",
            "no server: query all, per item",
        ];
        rows.extend(calls(&plan, &client, plan.rounds, plan.batch, names, false).await);

        let names = [
            "server: batch put_all, per item",
            "server: batch put_iter, per item",
            "server: put, per request",
            "server: get, per request",
            "server: query all, per item",
        ];
        if names.iter().any(|name| plan.wants(name)) {
            let client = server.client("bench-cpu");
            client.create_table(&[Event::MODEL]).await.expect("table");
            let (rounds, batch) = (plan.server_rounds, plan.server_batch);
            rows.extend(calls(&plan, &client, rounds, batch, names, true).await);
        }
    });
    print(&plan, &rows);
}
