//! The SDK interceptor that feeds the recorder, so no operation builder
//! knows statistics exist: before serialization it reads the typed input
//! (and asks for `ReturnConsumedCapacity`), after each attempt it reads the
//! typed output or error.
//!
//! The input is gone once serialized, so what it said travels to the
//! attempt hooks in the request's config bag.

use super::extract::{outcome, request_facts, throttle_reasons};
use super::record::RequestFacts;
use super::recorder::Recorder;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextMut, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use std::sync::Arc;
use std::time::Instant;

impl Storable for RequestFacts {
    type Storer = StoreReplace<Self>;
}

#[derive(Debug)]
pub(crate) struct StatsInterceptor {
    pub(crate) recorder: Arc<Recorder>,
}

impl Intercept for StatsInterceptor {
    fn name(&self) -> &'static str {
        "entity_client::stats"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(facts) = request_facts(context.input_mut(), &self.recorder.labeler) {
            cfg.interceptor_state().store_put(facts);
        }
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(facts) = cfg.load::<RequestFacts>() else {
            return Ok(());
        };
        let now = Instant::now();
        match context.output_or_error() {
            Some(Ok(output)) => {
                let outcome = outcome(facts.operation, output);
                self.recorder.window().record(facts, &outcome, now);
            }
            Some(Err(error)) => {
                // Only an error the service returned reached it: a throttle,
                // or another refusal (a failed condition, a canceled
                // transaction), which counts as a request without the
                // capacity DynamoDB reports on success only.
                let Some(refused) = error.as_operation_error() else {
                    return Ok(());
                };
                match throttle_reasons(facts.operation, refused) {
                    Some(reasons) => self.recorder.window().record_throttle(facts, &reasons, now),
                    None => self
                        .recorder
                        .window()
                        .record(facts, &Default::default(), now),
                }
            }
            None => {}
        }
        Ok(())
    }
}
