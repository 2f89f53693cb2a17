//! Capacity rate limits held to their budget, measured from the capacity
//! the server reported (`Client::measure`, the statistics' reading of
//! `ConsumedCapacity`; the limit's own count is printed beside it): a
//! batch write of 10,000 items of about 900 bytes (one write unit each)
//! held to a fixed write rate, a full scan of them in 4 parallel segments
//! held to a fixed read rate, and an adaptive limit writing through the
//! fault proxy against a simulated provisioned capacity (the proxy throttles
//! a request whenever the last second's writes passed it).
//!
//! Each fixed run prints target, achieved (units over the whole run's wall
//! time) and their ratio, against the ±10% it is held to, and the
//! unlimited rate on this machine (the budget must be well under it to
//! mean anything). `cargo bench -p entity-tests --bench rate_limit`; a run
//! without `--bench` (`cargo test --benches`) is quick: 1,000 items.

use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, EmbeddedDynamo, Entity, RateLimit};
use entity_tests::bench::quick;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(id)]
#[sk()]
struct Doc {
    id: u32,
    body: String,
}

fn docs(n: u32) -> impl Iterator<Item = Doc> + Send + 'static {
    (0..n).map(|id| Doc {
        id,
        body: "x".repeat(900),
    })
}

/// How far from its target a fixed run may land.
const TOLERANCE: f64 = 0.10;

fn report(what: &str, target: f64, units: f64, counted: f64, elapsed: Duration, unlimited: f64) {
    let achieved = units / elapsed.as_secs_f64();
    let ratio = achieved / target;
    let verdict = if (ratio - 1.0).abs() <= TOLERANCE {
        "within ±10%"
    } else {
        "OUTSIDE ±10%"
    };
    println!(
        "{what}: target {target:.0} units/s, achieved {achieved:.1} units/s \
         ({units:.0} units reported in {elapsed:.2?}; the limit counted {counted:.0}), \
         ratio {ratio:.3}, {verdict}; unlimited {unlimited:.0} units/s"
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let items: u32 = if quick { 1_000 } else { 10_000 };
    let server = EmbeddedDynamo::start().await.expect("server");
    let client = server.client("rate_limit_bench");
    client.create_table(&[Doc::MODEL]).await.expect("table");

    // Batch write: unlimited first (the machine's rate, and the items the
    // scan reads), then the same puts held to the budget.
    let started = Instant::now();
    let (out, cost) = client
        .measure(|c| async move { c.batch_write().put_iter(docs(items)).await })
        .await;
    assert!(out.expect("write").is_complete());
    let unlimited = cost.write_units / started.elapsed().as_secs_f64();
    let target = if quick { 500.0 } else { 1_000.0 };
    let limit = RateLimit::fixed(f64::INFINITY, target);
    let started = Instant::now();
    let (out, cost) = client
        .measure(|c| {
            let limit = limit.clone();
            async move {
                c.batch_write()
                    .put_iter(docs(items))
                    .rate_limit(limit)
                    .await
            }
        })
        .await;
    let elapsed = started.elapsed();
    let out = out.expect("write");
    assert!(out.is_complete() && out.written == items as usize);
    let what = format!("batch write of {items} items");
    let counted = limit.consumed().write_units;
    report(&what, target, cost.write_units, counted, elapsed, unlimited);

    // Full scan in 4 segments, pages of 100 items.
    let scan = |c: Client, limit: Option<RateLimit>| async move {
        let mut scan = c.scan::<Doc>().segments(4).page_size(100);
        if let Some(limit) = limit {
            scan = scan.rate_limit(limit);
        }
        scan.all().await
    };
    let started = Instant::now();
    let (read, cost) = client.measure(|c| scan(c, None)).await;
    assert_eq!(read.expect("scan").len(), items as usize);
    let unlimited = cost.read_units / started.elapsed().as_secs_f64();
    let target = if quick { 100.0 } else { 250.0 };
    let limit = RateLimit::fixed(target, f64::INFINITY);
    let started = Instant::now();
    let (read, cost) = client.measure(|c| scan(c, Some(limit.clone()))).await;
    let elapsed = started.elapsed();
    assert_eq!(read.expect("scan").len(), items as usize);
    let what = format!("full scan of {items} items, 4 segments");
    let counted = limit.consumed().read_units;
    report(&what, target, cost.read_units, counted, elapsed, unlimited);

    adaptive(&server, items, quick).await;
}

/// An adaptive limit with a ceiling four times a simulated provisioned
/// capacity: it should settle near that capacity, neither far over it
/// (throttled without end) nor starved.
async fn adaptive(server: &EmbeddedDynamo, items: u32, quick: bool) {
    let provisioned = if quick { 250.0 } else { 500.0 };
    let proxy = Arc::new(
        FaultProxy::start_metering(server.endpoint())
            .await
            .expect("proxy"),
    );
    let name = "rate_limit_bench";
    let sdk = entity_tests::harness::fast_sdk(proxy.endpoint(), "rate_limit_bench");
    let limit = RateLimit::adaptive(f64::INFINITY, provisioned * 4.0)
        .quiet_period(Duration::from_millis(500));
    let client = Client::new(sdk, name).with_rate_limit(limit.clone());

    // The simulated capacity: a throttle whenever the last second's
    // writes passed it (one at a time, at most every 100 ms).
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (proxy, done, limit) = (proxy.clone(), done.clone(), limit.clone());
        tokio::spawn(async move {
            let mut window: VecDeque<(Instant, f64)> = VecDeque::new();
            // (when, units written so far, the rate the limit allowed)
            let mut samples = Vec::new();
            while !done.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let now = Instant::now();
                let written = proxy.faults().capacity(Operation::BatchWriteItem).write;
                window.push_back((now, written));
                while window
                    .front()
                    .is_some_and(|(at, _)| now - *at > Duration::from_secs(1))
                {
                    window.pop_front();
                }
                let (since, before) = window.front().copied().unwrap_or((now, written));
                let span = (now - since).as_secs_f64();
                if span > 0.5
                    && (written - before) / span > provisioned
                    && proxy.faults().pending(Operation::BatchWriteItem) == 0
                {
                    proxy
                        .faults()
                        .script(Operation::BatchWriteItem, [Fault::Throttling]);
                }
                samples.push((now, written, limit.rates().write_units));
            }
            samples
        })
    };
    let started = Instant::now();
    let out = client
        .batch_write()
        .put_iter(docs(items))
        .await
        .expect("write");
    let elapsed = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let samples = watcher.await.expect("watcher");
    assert!(out.is_complete(), "nothing dropped: {out:?}");
    let units = proxy.faults().capacity(Operation::BatchWriteItem).write;
    let achieved = units / elapsed.as_secs_f64();
    // The second half of the run, once the limit has found the capacity.
    let later = &samples[samples.len() / 2..];
    let (low, high) = later.iter().fold((f64::INFINITY, 0.0f64), |(l, h), s| {
        (l.min(s.2), h.max(s.2))
    });
    let (first, last) = (later[0], later[later.len() - 1]);
    let settled = (last.1 - first.1) / (last.0 - first.0).as_secs_f64();
    println!(
        "adaptive batch write of {items} items against {provisioned:.0} units/s provisioned \
         (ceiling {:.0}): achieved {achieved:.1} units/s over the run (ratio {:.3}), \
         {settled:.1} units/s over its second half (ratio {:.3}), {} throttles, \
         allowed rate over the second half {low:.0}..{high:.0}, {} written, none dropped",
        provisioned * 4.0,
        achieved / provisioned,
        settled / provisioned,
        limit.throttles(),
        out.written,
    );
}
