//! A `tracing` span around every operation (feature `tracing`): the
//! operation, entity, table and index, and its outcome. The SDK's own spans
//! (one per attempt, so retries show) nest inside it; a subscriber that
//! times spans gives the latency. Without the feature this is nothing.

use crate::error::Result;
use crate::ops::BoxFuture;
use std::future::Future;

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
    )
}

/// No span without the `tracing` feature.
#[cfg(not(feature = "tracing"))]
pub(crate) fn span(op: Op<'_>) -> Span {
    let _ = op;
    Span
}

/// The future of an operation, inside its span, which records its outcome.
#[cfg(feature = "tracing")]
pub(crate) fn traced<T: Send + 'static>(
    span: Span,
    future: impl Future<Output = Result<T>> + Send + 'static,
) -> BoxFuture<'static, Result<T>> {
    use tracing::Instrument;
    let recorded = span.clone();
    Box::pin(
        async move {
            let result = future.await;
            match &result {
                Ok(_) => recorded.record("outcome", "ok"),
                Err(e) => recorded
                    .record("outcome", "error")
                    .record("error", tracing::field::display(e)),
            };
            result
        }
        .instrument(span),
    )
}

/// The future of an operation (no spans without the `tracing` feature).
#[cfg(not(feature = "tracing"))]
pub(crate) fn traced<T: Send + 'static>(
    span: Span,
    future: impl Future<Output = Result<T>> + Send + 'static,
) -> BoxFuture<'static, Result<T>> {
    let Span = span;
    Box::pin(future)
}
