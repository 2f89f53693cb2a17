//! One way every builder runs. A builder says what it is
//! ([`Operation::describe`]) and what it does ([`Operation::execute`]);
//! awaiting it (`IntoFuture`) and [`Explain`](super::explain::Explain),
//! both from [`operation!`], and its tracing span ([`run`]) all come from
//! here, for every builder alike.
//!
//! A builder's other ways to read (`query(..).all()`, `.items()`,
//! `history(..).latest()`) open the same span through
//! [`Operation::span`].

use super::BoxFuture;
use crate::error::Result;
use crate::trace::{self, Op, Span};
use crate::Client;
use futures::TryFutureExt;
use std::future::Future;

/// An operation builder.
pub(crate) trait Operation: Sized + Send + 'static {
    /// What it returns when it succeeds.
    type Output: Send + 'static;

    /// Whether `explain` lets the GetItems it sends first through, to
    /// explain what follows them: a write's (the stored item of a guarded
    /// write) and a history read's (the stored item's version). Another
    /// read's GetItem is what it explains.
    const READS_FIRST: bool;

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

/// The operation's work inside its span: what `.await` runs. Its error
/// names the client's table when that is what was missing
/// ([`Error::in_table`](crate::Error)).
pub(crate) fn run<O: Operation>(operation: O) -> BoxFuture<'static, Result<O::Output>> {
    let span = operation.span();
    let table = operation.describe().table.to_owned();
    // A combinator, not an `async` block: a block awaiting the work would
    // hold it twice (as captured, then as awaited) and copy it between the
    // two on its first poll, and the work holds the SDK's request future.
    trace::traced(span, move || {
        operation
            .execute()
            .map_err(move |e: crate::Error| e.in_table(&table))
    })
}

/// `.await` and `explain()` on an [`Operation`]:
/// `operation!([generics] Builder => Output)`, `Output` being its
/// [`Operation::Output`] (named again because the trait is private and
/// `IntoFuture::Output` is public).
macro_rules! operation {
    ([$($generics:tt)*] $builder:ty => $output:ty) => {
        impl<$($generics)*> ::std::future::IntoFuture for $builder {
            type Output = $crate::Result<$output>;
            type IntoFuture = $crate::ops::BoxFuture<'static, Self::Output>;

            fn into_future(self) -> Self::IntoFuture {
                $crate::ops::operation::run(self)
            }
        }

        impl<$($generics)*> $crate::ops::explain::Explain for $builder {
            fn explain(
                self,
            ) -> $crate::ops::BoxFuture<'static, $crate::Result<$crate::ops::explain::Explained>> {
                $crate::ops::explain::explain(self)
            }
        }
    };
}

pub(crate) use operation;

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every source file of the crate, with its text.
    fn sources(dir: &Path, files: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // One space between words, however rustfmt wrapped them.
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                files.push((path.display().to_string(), text));
            }
        }
    }

    /// A builder is awaited only through `operation!`, which needs an
    /// `Operation`: none can be awaited without its span and `explain()`.
    #[test]
    fn every_awaitable_builder_is_an_operation() {
        let mut files = Vec::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let count = |needle: &str| {
            files
                .iter()
                .filter(|(path, _)| !path.ends_with("operation.rs"))
                .map(|(_, text)| text.matches(needle).count())
                .sum::<usize>()
        };
        for (path, text) in &files {
            let by_hand = text.contains("IntoFuture for");
            assert!(
                path.ends_with("operation.rs") || !by_hand,
                "{path} implements IntoFuture by hand: use operation!"
            );
        }
        let operations = count("Operation for ");
        assert_eq!(count("operation!(["), operations);
        // 17 since the scope became a type: the tenant and cross-tenant
        // transactions and the cross-tenant batch are `TransactWrite<S>`,
        // `TransactGet<S>` and `BatchWrite<S>`, no builders of their own;
        // then `Rekey` and `Hydrate`.
        assert_eq!(operations, 19, "the builders");
    }
}
