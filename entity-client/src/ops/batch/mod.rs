//! `batch_get` (chunks of 100) and `batch_write` (chunks of 25).
//!
//! Unprocessed keys and items are retried with exponential backoff and full
//! jitter ([`BatchPolicy`](crate::BatchPolicy)), several chunks in flight at
//! once. Whatever is still unprocessed when the attempts run out comes back
//! in the output: nothing is dropped. (ElectroDB returns unprocessed items
//! unretried; dynamodb-toolbox retries without backoff.)
//!
//! Requests are moved, never copied: a batch get cuts its chunks from the
//! caller's keys, a batch write builds each request straight into its
//! chunk, and each retry sends exactly what the server handed back. A batch
//! write can also take its entities from an iterator or a `Stream`,
//! converting each as its chunk is built, so only the chunks in flight are
//! held in memory. A batch that fails as a whole (DynamoDB throttles a
//! batch whose every item is throttled with
//! `ProvisionedThroughputExceededException`) is resent by the SDK, which
//! keeps the serialized request, with its attempts and backoff set from the
//! same policy for batch requests ([`Client::batch_sdk`](crate::Client));
//! what fails past them is reported by key.

pub mod get;
pub(crate) mod seen;
pub mod write;
mod write_chunk;

use crate::error::Error;
use crate::BatchPolicy;
use std::future::Future;

/// The most items a batch makes room for ahead of time, from what an
/// iterator or stream says it holds: a size hint can be far more than comes
/// (an endless iterator's is `usize::MAX`), and past this, room grows as
/// items come.
pub(crate) const RESERVE_AT_MOST: usize = 1 << 16;

/// How one chunk ended.
pub(crate) struct Outcome<R, O, L> {
    /// What each successful request returned.
    pub outputs: Vec<O>,
    /// What the server still handed back unprocessed when the attempts ran
    /// out.
    pub unprocessed: Vec<R>,
    /// A request that failed after the SDK's own retries, and what the
    /// caller kept of the requests moved into it.
    pub failed: Option<(Error, L)>,
}

/// Sends `chunk`, then what the server hands back unprocessed, with
/// backoff, until nothing is left or the policy's attempts run out. `send`
/// takes the requests by value (and the attempt, from 1) and returns the
/// unprocessed ones.
pub(crate) async fn until_processed<R, O, L, Fut>(
    policy: BatchPolicy,
    chunk: Vec<R>,
    mut send: impl FnMut(Vec<R>, u32) -> Fut,
) -> Outcome<R, O, L>
where
    Fut: Future<Output = Result<(Vec<R>, O), (Error, L)>>,
{
    let mut outcome = Outcome {
        outputs: Vec::new(),
        unprocessed: chunk,
        failed: None,
    };
    let mut attempt = 0;
    while !outcome.unprocessed.is_empty() && attempt < policy.max_attempts {
        if attempt > 0 {
            tokio::time::sleep(policy.backoff(attempt)).await;
        }
        attempt += 1;
        match send(std::mem::take(&mut outcome.unprocessed), attempt).await {
            Ok((unprocessed, output)) => {
                outcome.unprocessed = unprocessed;
                outcome.outputs.push(output);
            }
            Err(failed) => {
                outcome.failed = Some(failed);
                break;
            }
        }
    }
    outcome
}

/// `items` in chunks of `size`, moved out one chunk at a time.
pub(crate) fn chunks<T>(items: Vec<T>, size: usize) -> impl Iterator<Item = Vec<T>> {
    let mut items = items.into_iter();
    std::iter::from_fn(move || {
        let chunk: Vec<T> = items.by_ref().take(size).collect();
        (!chunk.is_empty()).then_some(chunk)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn policy(max_attempts: u32) -> BatchPolicy {
        BatchPolicy {
            max_attempts,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            concurrency: 1,
        }
    }

    #[test]
    fn chunks_move_every_item_once() {
        let cut: Vec<Vec<u32>> = chunks((0..7).collect(), 3).collect();
        assert_eq!(cut, [vec![0, 1, 2], vec![3, 4, 5], vec![6]]);
        assert_eq!(chunks(Vec::<u32>::new(), 3).count(), 0);
    }

    #[tokio::test]
    async fn retries_send_exactly_what_came_back() {
        let mut sent = Vec::new();
        let outcome: Outcome<u32, usize, ()> =
            until_processed(policy(5), vec![1, 2, 3, 4], |requests: Vec<u32>, _| {
                sent.push(requests.clone());
                // The server processes the first request of each call.
                let unprocessed = requests.iter().skip(1).copied().collect();
                async move { Ok((unprocessed, 1)) }
            })
            .await;
        assert_eq!(sent, [vec![1, 2, 3, 4], vec![2, 3, 4], vec![3, 4], vec![4]]);
        assert!(outcome.unprocessed.is_empty() && outcome.failed.is_none());
        assert_eq!(outcome.outputs.len(), 4);
    }

    #[tokio::test]
    async fn attempts_run_out_and_failures_stop_the_chunk() {
        let outcome: Outcome<u32, (), ()> =
            until_processed(policy(2), vec![1, 2], |requests: Vec<u32>, _| async move {
                Ok((requests, ()))
            })
            .await;
        assert_eq!(
            (outcome.unprocessed, outcome.outputs.len()),
            (vec![1, 2], 2)
        );
        let outcome: Outcome<u32, (), usize> =
            until_processed(policy(5), vec![1, 2], |requests: Vec<u32>, _| async move {
                Err((Error::NotFound { entity: "x" }, requests.len()))
            })
            .await;
        assert!(matches!(outcome.failed, Some((Error::NotFound { .. }, 2))));
        assert!(outcome.unprocessed.is_empty());
    }
}
