//! What the client benchmarks share: contenders run side by side in
//! alternating rounds, each going first in turn, so machine noise and a table
//! that grows as the run goes on hit both alike, and their medians compared;
//! the hand-written raw-SDK contenders ([`raw`]); an SDK HTTP client that
//! answers without a server ([`fake_http`]); and a per-thread CPU clock.

pub mod fake_http;
pub mod raw;

use std::time::Duration;

/// The median of `samples` (the upper one of an even count).
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Runs `first` and `second` in `rounds` alternating rounds, taking turns
/// going first; each is given the round number and returns the time it
/// measured (so it can leave its setup out). The median time of each.
pub async fn alternating(
    rounds: usize,
    first: impl AsyncFnMut(usize) -> Duration,
    second: impl AsyncFnMut(usize) -> Duration,
) -> (Duration, Duration) {
    let pairs = alternating_pairs(rounds, first, second).await;
    let (a, b) = pairs.into_iter().unzip();
    (median(a), median(b))
}

/// [`alternating`]'s samples: each round's pair of times, in round order.
pub async fn alternating_pairs(
    rounds: usize,
    mut first: impl AsyncFnMut(usize) -> Duration,
    mut second: impl AsyncFnMut(usize) -> Duration,
) -> Vec<(Duration, Duration)> {
    let mut pairs = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let (a, b) = if round % 2 == 0 {
            let a = first(round).await;
            (a, second(round).await)
        } else {
            let b = second(round).await;
            (first(round).await, b)
        };
        pairs.push((a, b));
    }
    pairs
}

/// The median over rounds of each round's ratio, first to second: a load
/// on the machine that comes and goes during the run slows both samples of
/// a round alike, so it cancels out of their ratio where it would move the
/// two medians apart.
pub fn median_ratio(pairs: &[(Duration, Duration)]) -> f64 {
    let mut ratios: Vec<f64> = pairs
        .iter()
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64().max(f64::MIN_POSITIVE))
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// Whether the benchmark was started as a quick check: fewer items, one
/// round, nothing judged. `cargo bench` passes `--bench` to a bench binary,
/// and `cargo test --benches` passes nothing, so a run without `--bench` is
/// one (as is one with `--quick`, or `--test`, by hand).
pub fn quick() -> bool {
    let args: Vec<String> = std::env::args().collect();
    let asked = args.iter().any(|a| a == "--test" || a == "--quick");
    asked || !args.iter().any(|a| a == "--bench")
}

/// CPU time the calling thread has used so far: on a current-thread runtime,
/// the work of the futures it polls, not the time other processes (or a
/// server on another thread) held the cores. Wall time where the platform
/// has no per-thread clock.
pub fn thread_cpu() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec the call writes into.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0 {
            let seconds = u64::try_from(now.tv_sec).unwrap_or(0);
            let nanos = u32::try_from(now.tv_nsec).unwrap_or(0);
            return Duration::new(seconds, nanos);
        }
    }
    wall_clock_origin().elapsed()
}

/// The fallback clock of [`thread_cpu`].
fn wall_clock_origin() -> std::time::Instant {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *ORIGIN.get_or_init(std::time::Instant::now)
}
