//! One kind of capacity's budget (reads or writes) as a debt: what a
//! request consumed is charged after the fact, the balance may go below
//! zero, and the next request waits until time has paid the debt back.
//!
//! A debt rather than tokens taken up front, because what a request costs
//! is known only from DynamoDB's answer: an estimate is charged before it is
//! sent and reconciled with the reported consumption when it returns.

use std::time::Duration;
use tokio::time::Instant;

/// How an adaptive budget moves (see [`RateLimit::adaptive`](super::RateLimit::adaptive)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Adaptation {
    /// The lowest rate, as a fraction of the ceiling: a budget never
    /// starves its work.
    pub floor: f64,
    /// A quiet period with no throttle before each step up.
    pub quiet: Duration,
}

/// The unused capacity a budget keeps while nothing is sent: a second's
/// worth, so an idle limiter lets one short burst through, no more.
const BURST: Duration = Duration::from_secs(1);

/// The part of the ceiling a quiet period adds back.
const STEP_UP: f64 = 0.1;

/// What a throttle multiplies the rate by.
const STEP_DOWN: f64 = 0.5;

#[derive(Debug, Clone)]
pub(crate) struct Bucket {
    /// The rate set (units per second); infinite: no limit.
    ceiling: f64,
    /// The rate allowed now (the ceiling, unless an adaptive budget
    /// stepped down).
    rate: f64,
    /// Units available (negative: owed).
    balance: f64,
    updated: Instant,
    /// The last step down or up.
    changed: Instant,
    /// The last throttle: a step up waits for a quiet period after it.
    throttled: Option<Instant>,
    adaptation: Option<Adaptation>,
    /// What a request of this kind consumed lately (a moving average):
    /// what a request is charged when it passes ([`Bucket::pass`]), before
    /// its own estimate is known.
    typical: f64,
    /// What passes charged that no estimate has yet taken the place of,
    /// and how many passes that is.
    prepaid: f64,
    passes: u32,
    /// Units DynamoDB reported consumed, and throttles seen.
    pub(crate) consumed: f64,
    pub(crate) throttles: u64,
}

impl Bucket {
    pub(crate) fn new(rate: f64, adaptation: Option<Adaptation>, now: Instant) -> Self {
        // NaN and non-positive rates read as the smallest rate, never as
        // "no limit" or "never".
        let rate = rate.max(MIN_RATE);
        Self {
            ceiling: rate,
            rate,
            balance: 0.0,
            updated: now,
            changed: now,
            throttled: None,
            typical: 1.0,
            prepaid: 0.0,
            passes: 0,
            adaptation,
            consumed: 0.0,
            throttles: 0,
        }
    }

    fn limited(&self) -> bool {
        self.ceiling.is_finite()
    }

    /// The rate set.
    pub(crate) fn ceiling(&self) -> f64 {
        self.ceiling
    }

    /// How it adapts, if it does.
    pub(crate) fn adaptation(&self) -> Option<Adaptation> {
        self.adaptation
    }

    /// The rate allowed now.
    pub(crate) fn rate(&self) -> f64 {
        self.rate
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.updated = now;
        if self.limited() {
            let most = self.rate * BURST.as_secs_f64();
            self.balance = (self.balance + elapsed * self.rate).min(most);
        }
    }

    /// How long until the debt is paid back (`None`: send now).
    pub(crate) fn wait(&mut self, now: Instant) -> Option<Duration> {
        if !self.limited() {
            return None;
        }
        self.refill(now);
        (self.balance < 0.0).then(|| Duration::from_secs_f64(-self.balance / self.rate))
    }

    /// What a request of this kind consumed lately.
    pub(crate) fn typical(&self) -> f64 {
        self.typical
    }

    /// Lets a request through when the budget is out of debt (`None`),
    /// charging it what a request typically consumes at once, so requests
    /// that wait together pass one after another, not all at the moment
    /// the debt is paid; else how long to wait.
    pub(crate) fn pass(&mut self, now: Instant) -> Option<Duration> {
        let wait = self.wait(now);
        if wait.is_none() && self.limited() {
            self.balance -= self.typical;
            self.prepaid += self.typical;
            self.passes += 1;
        }
        wait
    }

    /// Charges a request's estimate in place of what its pass prepaid
    /// (an even share of what passes prepaid: requests are not matched to
    /// their passes, the sum is right).
    pub(crate) fn charge_estimate(&mut self, units: f64, now: Instant) {
        let share = match self.passes {
            0 => 0.0,
            passes => self.prepaid / f64::from(passes),
        };
        self.passes = self.passes.saturating_sub(1);
        self.prepaid -= share;
        self.charge(units - share, now);
    }

    /// Charges `units` (negative: gives back an estimate that was too high).
    pub(crate) fn charge(&mut self, units: f64, now: Instant) {
        if units.is_finite() && self.limited() {
            self.refill(now);
            self.balance -= units;
        }
    }

    /// Records what DynamoDB reported consumed; an adaptive budget that
    /// has seen no throttle for a quiet period steps up.
    pub(crate) fn consumed(&mut self, units: f64, now: Instant) {
        self.consumed += units;
        self.typical = 0.5 * (self.typical + units);
        if let Some(adaptation) = self.adaptation {
            let quiet_since = |at: Instant| now.saturating_duration_since(at) >= adaptation.quiet;
            let quiet = quiet_since(self.changed) && self.throttled.is_none_or(quiet_since);
            if self.rate < self.ceiling && quiet {
                self.refill(now);
                self.rate = (self.rate + self.ceiling * STEP_UP).min(self.ceiling);
                self.changed = now;
            }
        }
    }

    /// A request was throttled: an adaptive budget halves its rate, once
    /// per burst of throttles (those within a fifth of the quiet period of
    /// the last step are one event: the requests that were in flight
    /// together), never below its floor.
    pub(crate) fn throttled(&mut self, now: Instant) {
        self.throttles += 1;
        self.throttled = Some(now);
        let Some(adaptation) = self.adaptation else {
            return;
        };
        let since = now.saturating_duration_since(self.changed);
        let stepped_down = self.rate < self.ceiling;
        if stepped_down && since < adaptation.quiet / 5 {
            return;
        }
        self.refill(now);
        let floor = (self.ceiling * adaptation.floor).max(MIN_RATE);
        self.rate = (self.rate * STEP_DOWN).max(floor);
        self.balance = self.balance.min(0.0);
        self.changed = now;
    }
}

/// The smallest rate a budget takes (units per second).
const MIN_RATE: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;

    fn adaptive(now: Instant) -> Bucket {
        let adaptation = Adaptation {
            floor: 0.1,
            quiet: Duration::from_secs(1),
        };
        Bucket::new(100.0, Some(adaptation), now)
    }

    #[test]
    fn a_debt_is_paid_back_at_the_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::new(10.0, None, start);
        assert_eq!(bucket.wait(start), None);
        bucket.charge(25.0, start);
        let wait = bucket.wait(start).unwrap();
        assert!((wait.as_secs_f64() - 2.5).abs() < 1e-9, "{wait:?}");
        assert_eq!(bucket.wait(start + Duration::from_millis(2500)), None);
        // An estimate given back shortens the wait.
        bucket.charge(20.0, start + Duration::from_millis(2500));
        bucket.charge(-10.0, start + Duration::from_millis(2500));
        let wait = bucket.wait(start + Duration::from_millis(2500)).unwrap();
        assert!((wait.as_secs_f64() - 1.0).abs() < 1e-9, "{wait:?}");
    }

    #[test]
    fn a_pass_prepays_a_typical_request_and_its_estimate_takes_its_place() {
        // (1 unit typical until a request is answered.)
        let start = Instant::now();
        let mut bucket = Bucket::new(10.0, None, start);
        assert_eq!(bucket.pass(start), None);
        // The next waits for the typical request (1 unit) to be paid.
        assert!(bucket.pass(start).is_some());
        bucket.charge_estimate(5.0, start);
        let wait = bucket.wait(start).unwrap();
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-9, "{wait:?}");
        // A typical cost above the estimate is given back.
        bucket.typical = 4.0;
        bucket.charge(-5.0, start);
        assert_eq!(bucket.pass(start), None);
        bucket.charge_estimate(1.0, start);
        assert_eq!(bucket.wait(start + Duration::from_millis(100)), None);
        for _ in 0..20 {
            bucket.consumed(5.0, start);
        }
        assert!((bucket.typical() - 5.0).abs() < 0.01);
    }

    #[test]
    fn idle_time_saves_one_second_at_most() {
        let start = Instant::now();
        let mut bucket = Bucket::new(10.0, None, start);
        bucket.charge(15.0, start + Duration::from_secs(60));
        let wait = bucket.wait(start + Duration::from_secs(60)).unwrap();
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-9, "{wait:?}");
    }

    #[test]
    fn no_limit_never_waits() {
        let start = Instant::now();
        let mut bucket = Bucket::new(f64::INFINITY, None, start);
        bucket.charge(1e9, start);
        assert_eq!(bucket.wait(start), None);
    }

    #[test]
    fn adaptive_steps_down_once_per_burst_to_its_floor_and_back_up() {
        let start = Instant::now();
        let mut bucket = adaptive(start);
        for _ in 0..5 {
            bucket.throttled(start);
        }
        assert_eq!(bucket.rate(), 50.0, "one burst, one step");
        let mut now = start;
        for _ in 0..10 {
            now += Duration::from_millis(300);
            bucket.throttled(now);
        }
        assert_eq!(bucket.rate(), 10.0, "never below the floor");
        assert_eq!(bucket.throttles, 15);
        // Quiet: a tenth of the ceiling back per quiet period.
        bucket.consumed(1.0, now + Duration::from_millis(500));
        assert_eq!(bucket.rate(), 10.0);
        for step in 1..=12 {
            bucket.consumed(1.0, now + Duration::from_secs(step));
        }
        assert_eq!(bucket.rate(), 100.0, "back to the ceiling, no further");
    }
}
