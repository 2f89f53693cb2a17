//! One way every builder runs. A builder says what it is
//! ([`Operation::describe`]) and what it does ([`Operation::execute`]);
//! awaiting it (`IntoFuture`, from [`operation!`]), its tracing span
//! ([`run`]) and [`Explain::explain`](super::explain::Explain) all come from
//! here, for every builder alike.
//!
//! A builder's other ways to read (`query(..).all()`, `.items()`,
//! `history(..).latest()`) open the same span through
//! [`Operation::span`].

use super::BoxFuture;
use crate::error::Result;
use crate::trace::{self, Op, Span};
use crate::Client;
use std::future::Future;

/// An operation builder.
pub(crate) trait Operation: Sized + Send + 'static {
    /// What it returns when it succeeds.
    type Output: Send + 'static;

    /// Whether it writes: `explain` then lets the reads it needs first
    /// (the stored item of a guarded write) through.
    const WRITES: bool;

    /// The operation, entity, table and index its span names.
    fn describe(&self) -> Op<'_>;

    /// Its client: `explain` swaps in one that captures requests.
    fn client_mut(&mut self) -> &mut Client;

    /// The operation's work, outside any span.
    fn execute(self) -> impl Future<Output = Result<Self::Output>> + Send + 'static;

    /// Its span (made before the work borrows the builder).
    fn span(&self) -> Span {
        trace::span(self.describe())
    }
}

/// The operation's work inside its span: what `.await` runs.
pub(crate) fn run<O: Operation>(operation: O) -> BoxFuture<'static, Result<O::Output>> {
    let span = operation.span();
    trace::traced(span, operation.execute())
}

/// `.await` on an [`Operation`]: `operation!([generics] Builder => Output)`,
/// `Output` being its [`Operation::Output`] (named again because the
/// trait is private and `IntoFuture::Output` is public).
macro_rules! operation {
    ([$($generics:tt)*] $builder:ty => $output:ty) => {
        impl<$($generics)*> ::std::future::IntoFuture for $builder {
            type Output = $crate::Result<$output>;
            type IntoFuture = $crate::ops::BoxFuture<'static, Self::Output>;

            fn into_future(self) -> Self::IntoFuture {
                $crate::ops::operation::run(self)
            }
        }
    };
}

pub(crate) use operation;
