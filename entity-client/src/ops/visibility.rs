//! Which stored items a read returns: DynamoDB deletes expired items lazily
//! (often days after their TTL), and a soft-deleted item stays in its
//! partition, so every read (get, query, scan, batch get, collections)
//! hides both unless the caller asks for them.
//!
//! The check is made on the items read, not in a FilterExpression: "now"
//! changes between the pages of one query, and a filter value that changes
//! would change the query's fingerprint and refuse its own cursor.

use crate::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::lifecycle::LifecycleModel;
use entity_core::{Item, Readable};
use std::time::UNIX_EPOCH;

/// What a read does with soft-deleted items.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Deleted {
    /// Skip them (the default).
    #[default]
    Hide,
    /// Return them with the others.
    Include,
    /// Return only them: the listing of deleted items.
    Only,
}

/// The caller's choices, before the read knows its entity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shown {
    pub expired: bool,
    pub deleted: Deleted,
}

/// A read's rule, resolved for its entity or collection at a time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Visibility {
    /// Seconds since the epoch: an item whose TTL is at or before it has
    /// expired.
    now: i64,
    shown: Shown,
    ttl: Vec<&'static str>,
    deleted: Vec<&'static str>,
}

impl Visibility {
    /// The rule for reads of `R` by `client` now.
    pub(crate) fn of<R: Readable>(client: &Client, shown: Shown) -> Self {
        Self::at::<R>(epoch_now(client), shown)
    }

    /// The rule for reads of `R` at `now` (epoch seconds).
    pub(crate) fn at<R: Readable>(now: i64, shown: Shown) -> Self {
        let lifecycles = R::lifecycles();
        Self {
            now,
            shown,
            ttl: attributes(&lifecycles, |l| l.ttl.map(|t| t.attribute)),
            deleted: attributes(&lifecycles, |l| l.soft_delete.map(|s| s.attribute)),
        }
    }

    /// Whether the read returns `item`.
    pub(crate) fn shows(&self, item: &Item) -> bool {
        if !self.shown.expired && self.ttl.iter().any(|a| self.expired(item.get(*a))) {
            return false;
        }
        let deleted = self.deleted.iter().any(|a| item.contains_key(*a));
        match self.shown.deleted {
            Deleted::Hide => !deleted,
            Deleted::Include => true,
            Deleted::Only => deleted,
        }
    }

    fn expired(&self, ttl: Option<&AttributeValue>) -> bool {
        match ttl {
            Some(AttributeValue::N(text)) => parse_seconds(text).is_some_and(|at| at <= self.now),
            _ => false,
        }
    }

    /// The attributes a projection must read for the rule to apply.
    pub(crate) fn attributes(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.ttl.iter().chain(&self.deleted).copied()
    }
}

/// The client's clock in epoch seconds.
pub(crate) fn epoch_now(client: &Client) -> i64 {
    client
        .now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Epoch seconds as DynamoDB's TTL reads them (an integer, or a decimal
/// whose integer part counts).
fn parse_seconds(text: &str) -> Option<i64> {
    let integer = text.split('.').next()?;
    integer.parse().ok()
}

fn attributes(
    lifecycles: &[&'static LifecycleModel],
    attribute: impl Fn(&LifecycleModel) -> Option<&'static str>,
) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for attribute in lifecycles.iter().filter_map(|l| attribute(l)) {
        if !out.contains(&attribute) {
            out.push(attribute);
        }
    }
    out
}

/// The builder methods that choose what a read shows, on a builder with a
/// `shown: Shown` field: `include_expired` and `include_deleted`, and with
/// `listing`, `only_deleted`.
macro_rules! shown_methods {
    () => {
        /// Also returns items whose TTL has passed but that DynamoDB has
        /// not deleted yet (it deletes expired items lazily, often days
        /// later; hidden by default).
        pub fn include_expired(mut self, include: bool) -> Self {
            self.shown.expired = include;
            self
        }

        /// Also returns soft-deleted items (`#[entity(soft_delete)]`;
        /// hidden by default).
        pub fn include_deleted(mut self, include: bool) -> Self {
            self.shown.deleted = if include {
                $crate::ops::visibility::Deleted::Include
            } else {
                $crate::ops::visibility::Deleted::Hide
            };
            self
        }
    };
    (listing) => {
        $crate::ops::visibility::shown_methods!();

        /// Returns only soft-deleted items: the listing of what can be
        /// restored.
        pub fn only_deleted(mut self) -> Self {
            self.shown.deleted = $crate::ops::visibility::Deleted::Only;
            self
        }
    };
}

pub(crate) use shown_methods;
