//! Faults on demand, so an application's own retry and error handling is
//! tested rather than assumed: a server that throttles, fails before or
//! after applying a request, drops the connection, answers part of a
//! batch, or slows down, when a test says so.
//!
//! [`EmbeddedDynamo::start_with_faults`](crate::EmbeddedDynamo::start_with_faults)
//! puts a [`FaultProxy`] in front of the embedded server and hands back its
//! [`Faults`]: every client made from that server goes through it. A
//! [`FaultProxy`] can also stand in front of any other local endpoint
//! (DynamoDB Local). The [testing guide](crate::guide::testing#faults-on-demand)
//! shows it at work.
//!
//! Faults are chosen per DynamoDB [`Operation`], in two ways:
//!
//! * a **script** ([`Faults::script`]): the operation's next requests get
//!   the scripted faults, one each, in order;
//! * a **rate** ([`Faults::rate`]): each request the script does not cover
//!   gets the fault with a probability, drawn from a seeded generator
//!   ([`Faults::seed`]), so a run is repeated exactly.
//!
//! [`Faults::counts`] says what the proxy saw of an operation: requests
//! received, requests that reached the server, and batch items among them.

mod batch;
mod capacity;
mod proxy;

pub use crate::stats::Operation;
pub use capacity::Capacity;
pub use proxy::{FaultProxy, FaultProxyError};

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Nothing: the request reaches the server and its answer the client
    /// (to script a fault after some clean requests).
    Pass,
    /// Answer 400 `ProvisionedThroughputExceededException`; the request is
    /// not applied.
    ProvisionedThroughputExceeded,
    /// Answer 400 `ThrottlingException`; the request is not applied.
    Throttling,
    /// Answer 500 `InternalServerError`; the request is not applied.
    ServerErrorBeforeApplying,
    /// Apply the request, then answer 500 `InternalServerError` instead of
    /// the server's answer: the write happened, the client cannot know.
    ServerErrorAfterApplying,
    /// Close the connection without answering; the request is not applied.
    DropBeforeApplying,
    /// Apply the request, then close the connection without answering.
    DropAfterApplying,
    /// For `BatchWriteItem` and `BatchGetItem`: apply only the first
    /// `forward` requests or keys (in table-name order, then request order)
    /// and answer the rest as `UnprocessedItems` or `UnprocessedKeys`, as
    /// DynamoDB does under load. The rest never reach the server. Other
    /// operations pass whole.
    PartialBatch {
        /// How many requests or keys reach the server.
        forward: usize,
    },
    /// Hold the request this long, then pass it: a slow server, or a window
    /// in which another writer's change lands between the client's read
    /// and this write.
    Delay(Duration),
}

/// What the proxy saw of one operation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Requests that arrived.
    pub received: usize,
    /// Requests that reached the server, whole or in part.
    pub forwarded: usize,
    /// Puts and deletes (`BatchWriteItem`) or keys (`BatchGetItem`) in the
    /// requests that reached the server; zero for other operations.
    pub batch_items_forwarded: usize,
}

/// The faults of one proxy: what its next requests meet, and what it saw.
/// Cheap to clone; every clone speaks to the same proxy.
#[derive(Debug, Clone)]
pub struct Faults {
    state: Arc<State>,
}

/// The seed of rates when [`Faults::seed`] was not called.
const DEFAULT_SEED: u64 = 0x5eed;

#[derive(Debug)]
struct State {
    plan: Mutex<Plan>,
    counts: Mutex<HashMap<String, Counts>>,
    capacity: Mutex<HashMap<String, Capacity>>,
}

/// The faults still to come.
#[derive(Debug)]
struct Plan {
    scripts: HashMap<Operation, VecDeque<Fault>>,
    rates: Vec<Rate>,
    seed: u64,
}

/// A fault at a rate: each of `operation`'s unscripted requests meets it
/// with `probability`, drawn from its own generator so that one
/// operation's draws do not depend on how others interleave.
#[derive(Debug)]
struct Rate {
    operation: Operation,
    probability: f64,
    fault: Fault,
    draws: fastrand::Rng,
}

impl Faults {
    fn new() -> Self {
        Self {
            state: Arc::new(State {
                plan: Mutex::new(Plan {
                    scripts: HashMap::new(),
                    rates: Vec::new(),
                    seed: DEFAULT_SEED,
                }),
                counts: Mutex::default(),
                capacity: Mutex::default(),
            }),
        }
    }

    /// Appends `faults` to `operation`'s script: its next requests meet
    /// them, one each, in order; requests after the script meet the rates,
    /// if any, or pass.
    pub fn script(&self, operation: Operation, faults: impl IntoIterator<Item = Fault>) {
        lock(&self.state.plan)
            .scripts
            .entry(operation)
            .or_default()
            .extend(faults);
    }

    /// From now on, each request of `operation` that no script covers
    /// meets `fault` with `probability` (clamped to `0.0..=1.0`; NaN is
    /// `0.0`). Rates of one operation are drawn in the order they were
    /// added; the first that fires wins.
    pub fn rate(&self, operation: Operation, probability: f64, fault: Fault) {
        let mut plan = lock(&self.state.plan);
        let draws = fastrand::Rng::with_seed(plan.seed);
        plan.rates.push(Rate {
            operation,
            probability: if probability.is_nan() {
                0.0
            } else {
                probability.clamp(0.0, 1.0)
            },
            fault,
            draws,
        });
    }

    /// Restarts every rate's draws from `seed`, and draws later rates from
    /// it: the same seed and the same requests meet the same faults. Rates
    /// start from a fixed seed when this is never called.
    pub fn seed(&self, seed: u64) {
        let mut plan = lock(&self.state.plan);
        plan.seed = seed;
        for rate in &mut plan.rates {
            rate.draws = fastrand::Rng::with_seed(seed);
        }
    }

    /// Removes every script and rate: later requests pass. Counts stay.
    pub fn clear(&self) {
        let mut plan = lock(&self.state.plan);
        plan.scripts.clear();
        plan.rates.clear();
    }

    /// Faults scripted for `operation` that no request has met yet.
    pub fn pending(&self, operation: Operation) -> usize {
        lock(&self.state.plan)
            .scripts
            .get(&operation)
            .map_or(0, VecDeque::len)
    }

    /// What the proxy saw of `operation` so far.
    pub fn counts(&self, operation: Operation) -> Counts {
        self.counts_of(operation.name())
    }

    /// What the proxy saw of every operation so far (control-plane ones
    /// such as `CreateTable` too), by the operation's name.
    pub fn all_counts(&self) -> BTreeMap<String, Counts> {
        lock(&self.state.counts)
            .iter()
            .map(|(operation, counts)| (operation.clone(), *counts))
            .collect()
    }

    /// The capacity the server reported consuming for `operation` so far
    /// (a metering proxy, [`FaultProxy::start_metering`]; zero otherwise).
    pub fn capacity(&self, operation: Operation) -> Capacity {
        lock(&self.state.capacity)
            .get(operation.name())
            .copied()
            .unwrap_or_default()
    }

    /// The capacity reported for every operation so far, by name.
    pub fn all_capacity(&self) -> BTreeMap<String, Capacity> {
        lock(&self.state.capacity)
            .iter()
            .map(|(operation, capacity)| (operation.clone(), *capacity))
            .collect()
    }

    fn counts_of(&self, name: &str) -> Counts {
        lock(&self.state.counts)
            .get(name)
            .copied()
            .unwrap_or_default()
    }

    /// Counts a request of the operation named `name` and decides its
    /// fault: the script's next, else the first rate that fires, else none.
    fn next_fault(&self, name: &str) -> Fault {
        self.count(name, |c| c.received += 1);
        let Some(operation) = operation_named(name) else {
            return Fault::Pass;
        };
        let mut plan = lock(&self.state.plan);
        if let Some(fault) = plan
            .scripts
            .get_mut(&operation)
            .and_then(VecDeque::pop_front)
        {
            return fault;
        }
        plan.rates
            .iter_mut()
            .filter(|rate| rate.operation == operation)
            .find_map(|rate| (rate.draws.f64() < rate.probability).then_some(rate.fault))
            .unwrap_or(Fault::Pass)
    }

    fn count(&self, name: &str, change: impl FnOnce(&mut Counts)) {
        change(lock(&self.state.counts).entry(name.to_owned()).or_default());
    }

    fn add_capacity(&self, name: &str, consumed: Capacity) {
        let mut all = lock(&self.state.capacity);
        let sum = all.entry(name.to_owned()).or_default();
        sum.reports += consumed.reports;
        sum.read += consumed.read;
        sum.write += consumed.write;
    }
}

/// The operations faults can be chosen for, by their API name.
const OPERATIONS: [Operation; 10] = [
    Operation::GetItem,
    Operation::PutItem,
    Operation::UpdateItem,
    Operation::DeleteItem,
    Operation::Query,
    Operation::Scan,
    Operation::BatchGetItem,
    Operation::BatchWriteItem,
    Operation::TransactGetItems,
    Operation::TransactWriteItems,
];

fn operation_named(name: &str) -> Option<Operation> {
    OPERATIONS.into_iter().find(|op| op.name() == name)
}

/// A poisoned lock only means a thread panicked while holding it; the data
/// is still counts and queues.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_comes_before_rates_and_ends_in_passes() {
        let faults = Faults::new();
        faults.script(Operation::PutItem, [Fault::Throttling, Fault::Pass]);
        faults.rate(Operation::PutItem, 1.0, Fault::ServerErrorBeforeApplying);
        let met: Vec<Fault> = (0..3).map(|_| faults.next_fault("PutItem")).collect();
        assert_eq!(
            met,
            [
                Fault::Throttling,
                Fault::Pass,
                Fault::ServerErrorBeforeApplying
            ]
        );
        assert_eq!(faults.next_fault("GetItem"), Fault::Pass);
        assert_eq!(faults.next_fault("CreateTable"), Fault::Pass);
        assert_eq!(faults.counts(Operation::PutItem).received, 3);
        assert_eq!(faults.all_counts()["CreateTable"].received, 1);
        faults.clear();
        assert_eq!(faults.next_fault("PutItem"), Fault::Pass);
    }

    #[test]
    fn the_same_seed_draws_the_same_faults() {
        let draws = |seed: u64| {
            let faults = Faults::new();
            faults.rate(Operation::Query, 0.3, Fault::Throttling);
            faults.seed(seed);
            (0..200)
                .map(|_| faults.next_fault("Query") == Fault::Throttling)
                .collect::<Vec<bool>>()
        };
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
        let hits = draws(7).into_iter().filter(|&hit| hit).count();
        assert!((30..90).contains(&hits), "{hits} of 200 at 0.3");
    }

    #[test]
    fn probabilities_out_of_range_are_clamped() {
        let faults = Faults::new();
        faults.rate(Operation::Scan, f64::NAN, Fault::Throttling);
        faults.rate(Operation::Scan, -1.0, Fault::Throttling);
        assert_eq!(faults.next_fault("Scan"), Fault::Pass);
        faults.rate(Operation::Scan, 7.0, Fault::DropBeforeApplying);
        assert_eq!(faults.next_fault("Scan"), Fault::DropBeforeApplying);
    }
}
