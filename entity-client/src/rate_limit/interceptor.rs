//! The SDK interceptor that charges a [`RateLimit`]: before serialization
//! it asks the request for `ReturnConsumedCapacity` and estimates what it
//! will consume; once serialized it charges the estimate; after each
//! attempt it reconciles the estimate with the consumption DynamoDB
//! reported, or tells the limit about a throttle. Requests and answers are
//! read by the statistics' extraction (`stats::extract`), the one reader
//! of consumed capacity.
//!
//! A client limited again, or an operation given its own limit, stacks a
//! second interceptor on the same SDK client: the last one added claims
//! the request (its claim replaces the others' in the config bag) and only
//! the claiming interceptor charges, so the innermost limit wins.

use super::estimate::estimate;
use super::{Kind, RateLimit, Rates};
use crate::client::Client;
use crate::scoping::Scope;
use crate::stats::extract::{ask_capacity, outcome, throttle_reasons};
use crate::stats::Operation;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextMut, BeforeTransmitInterceptorContextRef,
    FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::{
    batch_get_item::BatchGetItemOutput, batch_write_item::BatchWriteItemOutput,
};
use aws_smithy_runtime_api::client::interceptors::context::Output;
use aws_smithy_types::config_bag::{Storable, StoreReplace};

/// The limit that claimed a request, and what is charged to it and not
/// yet reconciled.
#[derive(Debug, Clone)]
struct Claim {
    limit: RateLimit,
    operation: Operation,
    kind: Kind,
    /// The estimate charged (0 until charged, and once reconciled).
    outstanding: f64,
    estimate: f64,
}

impl Storable for Claim {
    type Storer = StoreReplace<Self>;
}

#[derive(Debug)]
struct RateInterceptor {
    limit: RateLimit,
}

impl RateInterceptor {
    /// The request's claim, if this interceptor's limit made it.
    fn claim(&self, cfg: &ConfigBag) -> Option<Claim> {
        cfg.load::<Claim>()
            .filter(|claim| claim.limit.same(&self.limit))
            .cloned()
    }
}

impl Intercept for RateInterceptor {
    fn name(&self) -> &'static str {
        "entity_client::rate_limit"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let input = context.input_mut();
        if let Some(operation) = ask_capacity(input) {
            let (kind, estimate) = estimate(operation, input, &self.limit);
            cfg.interceptor_state().store_put(Claim {
                limit: self.limit.clone(),
                operation,
                kind,
                outstanding: 0.0,
                estimate,
            });
        }
        Ok(())
    }

    fn read_after_serialization(
        &self,
        _context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(mut claim) = self.claim(cfg) {
            claim.limit.charge(claim.kind, claim.estimate);
            claim.outstanding = claim.estimate;
            cfg.interceptor_state().store_put(claim);
        }
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(mut claim) = self.claim(cfg) else {
            return Ok(());
        };
        match context.output_or_error() {
            Some(Ok(output)) => {
                let reported = outcome(claim.operation, output);
                let reported = Rates {
                    read_units: reported.read_units,
                    write_units: reported.write_units,
                };
                claim.limit.settle(claim.kind, claim.outstanding, reported);
                if left_unprocessed(output) {
                    claim.limit.throttled(claim.kind);
                }
            }
            Some(Err(error)) => {
                let Some(refused) = error.as_operation_error() else {
                    return Ok(());
                };
                if throttle_reasons(claim.operation, refused).is_some() {
                    // The SDK's retry is charged the same estimate.
                    claim.limit.throttled(claim.kind);
                    return Ok(());
                }
                // Refused (a failed condition) still consumes capacity, but
                // DynamoDB reports none on an error: the estimate stands.
                let charged = claim.outstanding;
                claim
                    .limit
                    .settle(claim.kind, charged, no_report(claim.kind, charged));
            }
            None => return Ok(()),
        }
        claim.outstanding = 0.0;
        cfg.interceptor_state().store_put(claim);
        Ok(())
    }
}

/// `units` of `kind`, as a report.
fn no_report(kind: Kind, units: f64) -> Rates {
    match kind {
        Kind::Read => Rates {
            read_units: units,
            write_units: 0.0,
        },
        Kind::Write => Rates {
            read_units: 0.0,
            write_units: units,
        },
    }
}

/// Whether a batch came back with work unprocessed: DynamoDB's throttle of
/// part of a batch.
fn left_unprocessed(output: &Output) -> bool {
    if let Some(o) = output.downcast_ref::<BatchWriteItemOutput>() {
        return o.unprocessed_items.as_ref().is_some_and(|u| !u.is_empty());
    }
    if let Some(o) = output.downcast_ref::<BatchGetItemOutput>() {
        return o.unprocessed_keys.as_ref().is_some_and(|u| !u.is_empty());
    }
    false
}

impl<S: Scope> Client<S> {
    /// The same client (in the same scope), holding the requests it and
    /// its clones send to `limit`: each is charged the capacity DynamoDB
    /// reports it consumed (the client asks every request for
    /// `ReturnConsumedCapacity`), and its bulk operations (scans, with
    /// every parallel segment on the one budget, and query pages; batch
    /// writes; migrations and their backfills) wait for the budget before
    /// each request. Other operations are charged, not delayed. An operation's own limit
    /// (`.rate_limit(..)`) takes the place of this one for it.
    ///
    /// See [`RateLimit`] and the [capacity guide](crate::guide::capacity).
    ///
    /// ```
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use entity_client::{Entity, RateLimit};
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "app")]
    /// #[pk(id)]
    /// struct Doc { id: u32 }
    ///
    /// let server = entity_client::EmbeddedDynamo::start().await?;
    /// let client = server.client("app");
    /// client.create_table(&[Doc::MODEL]).await?;
    /// client.batch_write().put_iter((0..20).map(|id| Doc { id })).await?;
    ///
    /// let limit = RateLimit::adaptive(100.0, 100.0);
    /// let bulk = client.with_rate_limit(limit.clone());
    /// let docs = bulk.scan::<Doc>().segments(4).all().await?;
    /// assert_eq!(docs.len(), 20);
    /// assert!(limit.consumed().read_units > 0.0);
    /// # Ok(()) }
    /// ```
    pub fn with_rate_limit(&self, limit: RateLimit) -> Self {
        let interceptor = RateInterceptor {
            limit: limit.clone(),
        };
        self.intercepted(interceptor, |inner| inner.rate_limit = Some(limit))
    }
}
