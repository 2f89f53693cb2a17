//! Peak memory of a big batch write, side by side in one run: 100,000 small
//! items written through `batch_write().put_all(&items)` (every request
//! built before the first is sent) and through `put_iter(items)` (requests
//! built as chunks are sent, a few chunks in flight), both from the same
//! vector of items already in memory; and through `put_stream` of items
//! generated as they are polled, for the absolute figure.
//!
//! A counting global allocator tracks the peak of live heap bytes; each
//! contender's figure is that peak above what was live when it started (the
//! items included in the baseline). The embedded server runs in a child
//! process (this binary, started with `--serve`), so its storage of the
//! items is not counted. `cargo bench -p entity-tests --bench batch_memory`;
//! `--quick` writes 5,000.

use entity_client::{local_sdk_client, Client, EmbeddedDynamo, Entity};
use futures::StreamExt;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

fn shrank(by: usize) {
    LIVE.fetch_sub(by, Ordering::Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only counters are
// added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak of live heap bytes above what was live when `run` started, and
/// how long it took.
async fn measure(run: impl AsyncFnOnce()) -> (usize, Duration) {
    let baseline = LIVE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let start = Instant::now();
    run().await;
    let took = start.elapsed();
    (PEAK.load(Ordering::Relaxed).saturating_sub(baseline), took)
}

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

fn event(seq: u32) -> Event {
    Event {
        account: format!("acct-{}", seq % 100),
        seq,
        kind: if seq.is_multiple_of(2) {
            "credit".into()
        } else {
            "debit".into()
        },
        amount: i64::from(seq) * 7 - 5000,
    }
}

/// The embedded server, in a child process so its memory is its own.
struct Server {
    child: Child,
    endpoint: String,
}

impl Server {
    fn start() -> Self {
        let mut child = Command::new(std::env::current_exe().expect("this binary"))
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the server process");
        let mut endpoint = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut endpoint)
            .expect("the server's endpoint");
        Self {
            child,
            endpoint: endpoint.trim().to_owned(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The child: serves until its stdin closes.
fn serve() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let server = runtime
        .block_on(EmbeddedDynamo::start())
        .expect("embedded server");
    println!("{}", server.endpoint());
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    drop(server);
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

async fn run(items: u32) {
    let server = Server::start();
    let sdk = local_sdk_client(&server.endpoint);
    let mut tables = Vec::new();
    for name in ["put-all", "put-iter", "put-stream"] {
        let client = Client::new(sdk.clone(), format!("batch-memory-{name}"));
        client.create_table(&[Event::MODEL]).await.expect("table");
        // Warm the connection pool, so no contender pays for it.
        client.batch_write().put(&event(0)).await.expect("warm up");
        tables.push(client);
    }
    let check = |out: entity_client::BatchWriteOutput| {
        assert!(out.is_complete(), "{out:?}");
        assert_eq!(out.written, items as usize);
    };

    let held: Vec<Event> = (0..items).map(event).collect();
    let (all, all_took) = measure(async || {
        check(
            tables[0]
                .batch_write()
                .put_all(&held)
                .await
                .expect("put_all"),
        );
    })
    .await;
    drop(held);

    let held: Vec<Event> = (0..items).map(event).collect();
    let (iter, iter_took) = measure(async || {
        check(
            tables[1]
                .batch_write()
                .put_iter(held)
                .await
                .expect("put_iter"),
        );
    })
    .await;

    let (streamed, stream_took) = measure(async || {
        let generated = futures::stream::iter(0..items).map(event);
        let out = tables[2].batch_write().put_stream(generated).await;
        check(out.expect("put_stream"));
    })
    .await;

    println!("batch_memory: {items} items, peak live heap above the start of each write");
    println!(
        "  put_all(&items)          {:>8.1} MiB  {:>6.2} s",
        mib(all),
        all_took.as_secs_f64()
    );
    println!(
        "  put_iter(items)          {:>8.1} MiB  {:>6.2} s",
        mib(iter),
        iter_took.as_secs_f64()
    );
    println!(
        "  put_stream(generated)    {:>8.1} MiB  {:>6.2} s",
        mib(streamed),
        stream_took.as_secs_f64()
    );
    println!(
        "  peak put_all / put_iter: {:.1}x",
        all as f64 / iter.max(1) as f64
    );
}

fn main() {
    if std::env::args().any(|a| a == "--serve") {
        return serve();
    }
    let items = if entity_tests::bench::quick() {
        5_000
    } else {
        100_000
    };
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(run(items));
}
