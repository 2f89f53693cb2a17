//! A `tracing` span around every operation (feature `tracing`): the
//! operation, entity, table and index, its outcome, and what its requests
//! cost: `requests` sent, `retries` (attempts beyond one per request),
//! `read_units` and `write_units` consumed, `items` returned and `scanned`.
//! The SDK's own spans (one per attempt) nest inside it; a subscriber that
//! times spans gives the latency. Without the feature this is nothing.
//!
//! The costs come from an SDK interceptor ([`TraceInterceptor`], installed
//! by [`crate::Client::new`]) that adds each attempt's facts to a tally the
//! operation's future holds in a task-local: an operation's requests, its
//! concurrent batch chunks included, are polled inside that future, so they
//! find its tally and nothing else's. While no subscriber listens to the
//! span, there is no tally and the interceptor leaves requests alone;
//! otherwise it asks for `ReturnConsumedCapacity: TOTAL` where the request
//! left it unset.

use crate::client::Client;
use crate::error::Result;
use crate::ops::BoxFuture;
use std::future::Future;

impl Client {
    /// A client for `table` over an SDK client you configured (AWS through
    /// `aws-config`, or any endpoint).
    pub fn new(sdk: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self {
        // With `tracing`, an interceptor adds each request's cost to its
        // operation's span: once, also when `sdk` is another client's
        // (`Client::new(other.sdk().clone(), ..)`), which has it.
        #[cfg(feature = "tracing")]
        let sdk = match TraceInterceptor::installed(&sdk) {
            true => sdk,
            false => aws_sdk_dynamodb::Client::from_conf(
                sdk.config()
                    .to_builder()
                    .interceptor(TraceInterceptor)
                    .build(),
            ),
        };
        Self::assemble(sdk, table.into())
    }
}

/// What a span says about an operation.
#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
pub(crate) struct Op<'a> {
    /// `put`, `create`, `query`, ...
    pub operation: &'static str,
    /// The entity or collection.
    pub entity: &'static str,
    pub table: &'a str,
    pub index: Option<&'a str>,
}

/// The span of an operation.
#[cfg(feature = "tracing")]
pub(crate) type Span = tracing::Span;

/// No spans without the `tracing` feature.
#[cfg(not(feature = "tracing"))]
pub(crate) struct Span;

/// The span of `op`, made before the operation's future borrows nothing.
#[cfg(feature = "tracing")]
pub(crate) fn span(op: Op<'_>) -> Span {
    tracing::info_span!(
        "dynamodb",
        operation = op.operation,
        entity = op.entity,
        table = op.table,
        index = op.index.unwrap_or("-"),
        outcome = tracing::field::Empty,
        error = tracing::field::Empty,
        requests = tracing::field::Empty,
        retries = tracing::field::Empty,
        read_units = tracing::field::Empty,
        write_units = tracing::field::Empty,
        items = tracing::field::Empty,
        scanned = tracing::field::Empty,
    )
}

/// No span without the `tracing` feature.
#[cfg(not(feature = "tracing"))]
pub(crate) fn span(op: Op<'_>) -> Span {
    let _ = op;
    Span
}

/// The future `make` makes, on the heap. An operation's future is large
/// (the SDK's request future is inside it); it is made after the memory is
/// allocated, so that it can be written there rather than copied in.
fn boxed<F: Future + Send + 'static>(make: impl FnOnce() -> F) -> BoxFuture<'static, F::Output> {
    let future: Box<F> = Box::write(Box::new_uninit(), make());
    Box::into_pin(future)
}

/// The future of an operation (`make` makes it), inside its span, which
/// records its outcome.
#[cfg(feature = "tracing")]
pub(crate) fn traced<T: Send + 'static, F>(
    span: Span,
    make: impl FnOnce() -> F,
) -> BoxFuture<'static, Result<T>>
where
    F: Future<Output = Result<T>> + Send + 'static,
{
    use tracing::Instrument;
    if span.is_disabled() {
        return boxed(make);
    }
    let future = make();
    let recorded = span.clone();
    let tally = std::sync::Arc::new(std::sync::Mutex::new(Tally::default()));
    let counted = TALLY.scope(std::sync::Arc::clone(&tally), future);
    Box::pin(
        async move {
            let result = counted.await;
            let outcome = match &result {
                Ok(_) => Outcome::Ok,
                Err(e) => Outcome::Error(e),
            };
            record(&recorded, outcome, &tally);
            result
        }
        .instrument(span),
    )
}

/// How an operation ended, for its span.
#[cfg(feature = "tracing")]
enum Outcome<'a> {
    Ok,
    Error(&'a crate::Error),
    /// A stream dropped before its end.
    Stopped,
}

/// Records `outcome` and the tally's costs on `span`.
#[cfg(feature = "tracing")]
fn record(span: &Span, outcome: Outcome<'_>, tally: &std::sync::Mutex<Tally>) {
    match outcome {
        Outcome::Ok => span.record("outcome", "ok"),
        Outcome::Stopped => span.record("outcome", "stopped"),
        Outcome::Error(e) => span
            .record("outcome", "error")
            .record("error", tracing::field::display(e)),
    };
    let t = *tally.lock().unwrap_or_else(|e| e.into_inner());
    span.record("requests", t.requests)
        .record("retries", t.attempts.saturating_sub(t.requests))
        .record("read_units", t.read_units)
        .record("write_units", t.write_units)
        .record("items", t.items)
        .record("scanned", t.scanned);
}

/// A stream of an operation's pages or items (`query(..).pages()`,
/// `.items()`), inside its span: each poll enters the span and the
/// operation's tally, so its requests are counted there. The span records
/// `ok` at the stream's end, `error` at its first error, and `stopped`
/// when the stream is dropped before either.
#[cfg(feature = "tracing")]
pub(crate) fn traced_stream<T, S>(
    span: Span,
    stream: S,
) -> impl futures::Stream<Item = Result<T>> + Send + 'static
where
    T: Send + 'static,
    S: futures::Stream<Item = Result<T>> + Send + 'static,
{
    use futures::StreamExt;
    if span.is_disabled() {
        return stream.left_stream();
    }
    TracedStream {
        inner: Box::pin(stream),
        span,
        tally: Default::default(),
        recorded: false,
    }
    .right_stream()
}

/// See [`traced_stream`].
#[cfg(feature = "tracing")]
struct TracedStream<T> {
    inner: std::pin::Pin<Box<dyn futures::Stream<Item = Result<T>> + Send>>,
    span: Span,
    tally: std::sync::Arc<std::sync::Mutex<Tally>>,
    /// The outcome is recorded (the stream ended or failed).
    recorded: bool,
}

#[cfg(feature = "tracing")]
impl<T> futures::Stream for TracedStream<T> {
    type Item = Result<T>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let this = &mut *self;
        let polled = {
            let _entered = this.span.enter();
            let tally = std::sync::Arc::clone(&this.tally);
            let inner = &mut this.inner;
            TALLY.sync_scope(tally, || inner.as_mut().poll_next(cx))
        };
        if !this.recorded {
            let outcome = match &polled {
                Poll::Ready(None) => Some(Outcome::Ok),
                Poll::Ready(Some(Err(e))) => Some(Outcome::Error(e)),
                _ => None,
            };
            if let Some(outcome) = outcome {
                record(&this.span, outcome, &this.tally);
                this.recorded = true;
            }
        }
        polled
    }
}

#[cfg(feature = "tracing")]
impl<T> Drop for TracedStream<T> {
    fn drop(&mut self) {
        if !self.recorded {
            record(&self.span, Outcome::Stopped, &self.tally);
        }
    }
}

/// The stream of an operation (no spans without the `tracing` feature).
#[cfg(not(feature = "tracing"))]
pub(crate) fn traced_stream<T, S>(
    span: Span,
    stream: S,
) -> impl futures::Stream<Item = Result<T>> + Send + 'static
where
    T: Send + 'static,
    S: futures::Stream<Item = Result<T>> + Send + 'static,
{
    let Span = span;
    stream
}

/// What an operation's requests cost so far.
#[cfg(feature = "tracing")]
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    requests: u64,
    attempts: u64,
    read_units: f64,
    write_units: f64,
    items: u64,
    scanned: u64,
}

#[cfg(feature = "tracing")]
tokio::task_local! {
    /// The tally of the operation whose future is being polled.
    static TALLY: std::sync::Arc<std::sync::Mutex<Tally>>;
}

/// Adds `f`'s change to the current operation's tally, if it has one.
#[cfg(feature = "tracing")]
fn with_tally(f: impl FnOnce(&mut Tally)) -> bool {
    TALLY
        .try_with(|tally| f(&mut tally.lock().unwrap_or_else(|e| e.into_inner())))
        .is_ok()
}

/// The SDK interceptor that fills the tallies.
#[cfg(feature = "tracing")]
#[derive(Debug)]
pub(crate) struct TraceInterceptor;

/// The operation of the request under way, for the attempt hooks.
#[cfg(feature = "tracing")]
#[derive(Debug, Clone, Copy)]
struct Traced(crate::stats::Operation);

#[cfg(feature = "tracing")]
impl aws_smithy_types::config_bag::Storable for Traced {
    type Storer = aws_smithy_types::config_bag::StoreReplace<Self>;
}

/// Marks a request whose first attempt was counted.
#[cfg(feature = "tracing")]
#[derive(Debug, Clone, Copy)]
struct Sent;

#[cfg(feature = "tracing")]
impl aws_smithy_types::config_bag::Storable for Sent {
    type Storer = aws_smithy_types::config_bag::StoreReplace<Self>;
}

#[cfg(feature = "tracing")]
impl TraceInterceptor {
    const NAME: &'static str = "entity_client::trace";

    /// Whether `sdk` already has this interceptor (it was another
    /// client's): a second one would count every request twice.
    pub(crate) fn installed(sdk: &aws_sdk_dynamodb::Client) -> bool {
        use aws_sdk_dynamodb::config::Intercept;
        sdk.config().interceptors().any(|i| i.name() == Self::NAME)
    }
}

#[cfg(feature = "tracing")]
impl aws_sdk_dynamodb::config::Intercept for TraceInterceptor {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn modify_before_serialization(
        &self,
        context: &mut aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut<'_>,
        _components: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        if with_tally(|_| {}) {
            if let Some(operation) = crate::stats::extract::ask_capacity(context.input_mut()) {
                cfg.interceptor_state().store_put(Traced(operation));
            }
        }
        Ok(())
    }

    /// A request counts when its first attempt starts: one refused before
    /// (a tenant client's check, which runs after this interceptor's
    /// `modify_before_serialization`) was never sent.
    fn read_before_attempt(
        &self,
        _context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _components: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let first = cfg.load::<Sent>().is_none();
        if with_tally(|t| {
            t.attempts += 1;
            t.requests += u64::from(first);
        }) && first
        {
            cfg.interceptor_state().store_put(Sent);
        }
        Ok(())
    }

    fn read_after_attempt(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef<'_>,
        _components: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let Some(Traced(operation)) = cfg.load::<Traced>().copied() else {
            return Ok(());
        };
        if let Some(Ok(output)) = context.output_or_error() {
            let outcome = crate::stats::extract::outcome(operation, output);
            with_tally(|t| {
                t.read_units += outcome.read_units;
                t.write_units += outcome.write_units;
                t.items += outcome.returned;
                t.scanned += outcome.scanned;
            });
        }
        Ok(())
    }
}

/// The future of an operation (no spans without the `tracing` feature).
#[cfg(not(feature = "tracing"))]
pub(crate) fn traced<T: Send + 'static, F>(
    span: Span,
    make: impl FnOnce() -> F,
) -> BoxFuture<'static, Result<T>>
where
    F: Future<Output = Result<T>> + Send + 'static,
{
    let Span = span;
    boxed(make)
}
