//! The one guarded read-modify-write loop every single-item write runs in.
//!
//! A write that must know the stored item (a put that keeps `created_at`,
//! a write that moves unique sentinels, a history snapshot, a restore)
//! reads it strongly consistent, plans its request from it with a
//! condition that the item is still as read, and sends it through
//! [`single::send`]. Two failures send it again, planned anew:
//!
//! - **a race**: the write's condition failed and the item DynamoDB
//!   returned is not the one read (another writer moved it in between);
//! - **a stale unique claim**: a sentinel refused a value whose holder is
//!   gone, expired or soft-deleted ([`unique::reclaim_stale`] frees it).
//!
//! Anything else is the write's answer. A write that needs no stored item
//! but claims unique values (a create) runs in the same loop without the
//! read, so a stale claim never refuses it either; one that claims none (a
//! blind put) has nothing to repeat, and is sent without the loop.

use super::single::{self, IdentityGuard, SingleWrite};
use super::unique;
use crate::error::{Error, Result};
use crate::Client;
use entity_core::expr::Condition;
use entity_core::{Entity, Item, PrimaryKey};

/// How many times a write is planned and sent when other writers keep
/// moving the item, or stale claims keep refusing it.
pub(crate) const GUARDED_ATTEMPTS: u32 = 4;

/// The stored item a write starts from, as the write sees it.
pub(crate) struct Current<E> {
    /// The item; `None` when there is none (or it was not read).
    pub item: Option<Item>,
    /// The unique values whose sentinels it holds: none when there is no
    /// item, when it is soft-deleted (without `keep_unique`) or expired
    /// (its values are free), or when an older entity version wrote it
    /// (read through its upgrade, its values may never have been claimed:
    /// a write claims them).
    pub values: Vec<Option<String>>,
    /// Whether the item was read: a write planned without the read never
    /// meets a race.
    read: bool,
    entity: std::marker::PhantomData<fn() -> E>,
}

impl<E: Entity> Current<E> {
    /// Reads the item with `key`, strongly consistent. For a write with a
    /// tenant client's identity guard, an item of another entity at the
    /// key is refused as the write would be (`Error::TenantMismatch`), not
    /// decoded.
    pub(crate) async fn read(
        client: &Client,
        key: &PrimaryKey<E>,
        identity: Option<IdentityGuard>,
    ) -> Result<Self> {
        let item = client.get_raw(E::MODEL.name, key.to_item(), true).await?;
        if let (Some(guard), Some(stored)) = (identity, &item) {
            if guard.is_foreign(stored) {
                return Err(guard.mismatch(client));
            }
        }
        let values = match &item {
            Some(item) if holds_sentinels::<E>(client, item) => {
                E::from_item(item.clone())?.unique_values()
            }
            _ => Vec::new(),
        };
        Ok(Self {
            item,
            values,
            read: true,
            entity: std::marker::PhantomData,
        })
    }

    /// No stored item read: for a write that needs none.
    fn unread() -> Self {
        Self {
            item: None,
            values: Vec::new(),
            read: false,
            entity: std::marker::PhantomData,
        }
    }

    /// The condition that the item's unique attributes are still as read
    /// (no item, if there was none): a write built from this read applies
    /// only if no other write moved them in between.
    pub(crate) fn unique_guard(&self) -> Condition<E> {
        match &self.item {
            Some(item) => unique::still_holds(item),
            None => entity_core::__private::condition_not_exists(E::MODEL.primary.pk.attribute),
        }
    }

    /// Whether a failed write failed because another write changed the
    /// item after it was read (it appeared, went, or changed), rather than
    /// on a condition that holds against the item as read.
    pub(crate) fn raced(&self, error: &Error) -> bool {
        let Error::ConditionFailed { old, .. } = error else {
            return false;
        };
        self.read && self.item.as_ref() != old.as_deref()
    }
}

/// Whether the stored `item` holds sentinels of its unique values: it
/// holds its values ([`holds_unique`](super::lifecycle::holds_unique)) and
/// the entity's current version wrote it.
fn holds_sentinels<E: Entity>(client: &Client, item: &Item) -> bool {
    let current = E::MODEL.version_value();
    item.get(E::MODEL.version_attribute) == Some(&current)
        && super::lifecycle::holds_unique::<E>(client, item)
}

/// What a write plans from the stored item.
// Built and taken apart once per attempt: boxing the request would only
// add an allocation to every write.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step<T> {
    /// Nothing to send: the read decided the outcome.
    Done(T),
    /// Send this request; `T` is what the caller keeps of the plan.
    Send(SingleWrite, T),
}

/// Where a write starts: from the stored item with this key, or from
/// nothing.
pub(crate) enum Start<'a, E> {
    Read(&'a PrimaryKey<E>, Option<IdentityGuard>),
    Blind,
}

/// Runs `plan` and sends what it plans until the write is answered: the
/// plan's `T` and the attributes DynamoDB returned.
pub(crate) async fn read_modify_write<E: Entity, T>(
    client: &Client,
    start: Start<'_, E>,
    mut plan: impl FnMut(&Current<E>) -> Result<Step<T>>,
) -> Result<(T, Option<Item>)> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let current = match &start {
            Start::Read(key, identity) => Current::read(client, key, *identity).await?,
            Start::Blind => Current::unread(),
        };
        let (write, planned) = match plan(&current)? {
            Step::Done(planned) => return Ok((planned, None)),
            Step::Send(write, planned) => (write, planned),
        };
        let again = attempt < GUARDED_ATTEMPTS;
        match single::send(client, write).await {
            Ok(attributes) => return Ok((planned, attributes)),
            Err(e) if again && current.raced(&e) => continue,
            Err(Error::UniqueViolation {
                entity,
                constraint,
                value,
            }) => {
                if again && unique::reclaim_stale::<E>(client, constraint, &value).await? {
                    continue;
                }
                return Err(Error::UniqueViolation {
                    entity,
                    constraint,
                    value,
                });
            }
            Err(e) => return Err(e),
        }
    }
}
