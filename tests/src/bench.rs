//! What the client benchmarks share: contenders run side by side in
//! alternating rounds, each going first in turn, so machine noise and a table
//! that grows as the run goes on hit both alike, and their medians compared.

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
    mut first: impl AsyncFnMut(usize) -> Duration,
    mut second: impl AsyncFnMut(usize) -> Duration,
) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for turn in [round % 2, 1 - round % 2] {
            if turn == 0 {
                a.push(first(round).await);
            } else {
                b.push(second(round).await);
            }
        }
    }
    (median(a), median(b))
}

/// Whether the benchmark was started as a quick check (`cargo test
/// --benches` passes `--test`; `--quick` by hand): fewer items, one round,
/// nothing judged.
pub fn quick() -> bool {
    std::env::args().any(|a| a == "--test" || a == "--quick")
}
