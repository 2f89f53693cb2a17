//! A change of an item's table key as one move ([`Client::rekey`]): the
//! item under its new key and the old one deleted, in one transaction with
//! every feature's part.
//!
//! Changing a composite of the table key (a renamed handle that is part of
//! the key) is not an update: the item's identity changes. The move keeps
//! what belongs to the item: `created_at`, the version chain (the new item
//! is the next version of the old), its unique values (their sentinels
//! point to the new key), and it is planned from the stored item, read
//! strongly consistent, as every guarded write is: the old item must still
//! be as read, and the new key free.

use super::managed::{self, keep_created, stamped_key, Mode, Stamped};
use super::operation::{operation, Operation};
use super::rmw::{Current, GUARDED_ATTEMPTS};
use super::single::{self, IdentityGuard};
use super::whole_write::WholeWrite;
use super::{condition_only, not_exists, unique, Companion, Conditional};
use crate::error::{Error, FailedCondition, Result};
use crate::limits::{check_item, check_primary_key};
use crate::scoping::{Reaches, Scope, ScopeKey};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::{Delete, TransactWriteItem};
use entity_core::expr::Condition;
use entity_core::{Entity, Item, PrimaryKey};
use std::future::Future;

impl<S: Scope> Client<S> {
    /// Moves the item stored under `old` to the table key of `entity`, in
    /// one transaction: `entity` is written under its key (which must be
    /// free) and the item under `old` deleted (it must still be as read).
    /// Returns the entity as stored.
    ///
    /// - `created_at` is the stored item's, `updated_at` now; a versioned
    ///   entity must carry the stored version (`Error::VersionConflict`)
    ///   and is stored with the next, so the new item continues the old
    ///   one's version chain.
    /// - Unique values move with the item: a value it keeps points to the
    ///   new key, one it drops is freed, one it takes is claimed
    ///   (`Error::UniqueViolation` when another item holds it).
    /// - History: the move writes the new key's snapshot; the snapshots
    ///   written before it stay under the old key (`history(old)` reads
    ///   them).
    /// - `Error::NotFound` when there is no item under `old` (or it is
    ///   soft-deleted: restore it first); `Error::ConditionFailed` with
    ///   [`FailedCondition::Exists`] when an item holds the new key.
    /// - A tenant client moves only its tenant's items, within its tenant.
    ///
    /// ```
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use entity_client::{EmbeddedDynamo, Entity};
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "app", unique(email))]
    /// #[pk(handle)]
    /// #[sk()]
    /// struct Account {
    ///     handle: String,
    ///     email: String,
    ///     #[entity(version)]
    ///     version: u64,
    /// }
    ///
    /// let server = EmbeddedDynamo::start().await?;
    /// let client = server.client("app");
    /// client.create_table(&[Account::MODEL]).await?;
    /// let ada = client
    ///     .create(&Account { handle: "ada".into(), email: "ada@example.com".into(), version: 0 })
    ///     .await?;
    ///
    /// let renamed = Account { handle: "ada_l".into(), ..ada };
    /// let moved = client.rekey(Account::key("ada"), &renamed).await?;
    ///
    /// assert_eq!(moved.version, 2);
    /// assert!(client.get(Account::key("ada")).await?.is_none());
    /// let found = client.get_unique(Account::by_email("ada@example.com")).await?;
    /// assert_eq!(found.map(|a| a.handle).as_deref(), Some("ada_l"));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "embedded"))]
    /// # fn main() {}
    /// ```
    pub fn rekey<E: Entity>(&self, old: impl ScopeKey<E, S>, entity: &E) -> Rekey<E>
    where
        S: Reaches<E>,
    {
        let old = old.complete(&self.scope);
        let client = self.reach::<E>();
        let stamped = match self.scope.refuse(entity) {
            Some(error) => Err(error),
            None => managed::stamp(&client, entity, Mode::Replace),
        };
        Rekey {
            client,
            old,
            stamped,
            identity: IdentityGuard::of::<E>(S::GUARDED),
        }
    }
}

/// A move of an item to another table key ([`Client::rekey`]). `.await`
/// returns the entity as stored under its new key; `explain()` shows the
/// reads and the transaction without sending the transaction.
#[must_use = "a request does nothing until it is awaited"]
pub struct Rekey<E> {
    client: Client,
    old: PrimaryKey<E>,
    stamped: Result<Stamped<E>>,
    identity: Option<IdentityGuard>,
}

impl<E: Entity> Rekey<E> {
    async fn send(self) -> Result<E> {
        rekey_any(&self.client, &self.old, self.stamped?, self.identity).await
    }
}

impl<E: Entity + Send + 'static> Operation for Rekey<E> {
    type Output = E;
    const READS_FIRST: bool = true;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "rekey",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<E>> + Send + 'static {
        self.send()
    }
}

operation!([E: Entity + Send + 'static] Rekey<E> => E);

async fn rekey_any<E: Entity>(
    client: &Client,
    old: &PrimaryKey<E>,
    stamped: Stamped<E>,
    identity: Option<IdentityGuard>,
) -> Result<E> {
    check_primary_key(old)?;
    check_item(E::MODEL, &stamped.item)?;
    let new = stamped_key(&stamped)?;
    if new.to_item() == old.to_item() {
        return Err(crate::ValidationError::InvalidRequest(format!(
            "rekey of a {} to the key it has: write it with `put`",
            E::MODEL.name
        ))
        .into());
    }
    let expected = stamped.expected;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let current = Current::<E>::read(client, old, identity).await?;
        let stored = match &current.item {
            Some(item) if super::lifecycle::shown::<E>(client, item) => item,
            _ => {
                return Err(Error::NotFound {
                    entity: E::MODEL.name,
                })
            }
        };
        let kept = keep_created::<E>(&stamped.item, expected, Some(stored))?;
        let holds = E::from_item(kept.item.clone())?.unique_values();
        let condition = not_exists::<E>();
        let mut write = WholeWrite {
            item: std::borrow::Cow::Borrowed(&kept.item),
            upsert: false,
            removes: &[],
            condition: Some(&condition),
            identity,
            held: &[],
            holds: &[],
        }
        .plan(client)?;
        let moves =
            unique::rekey_moves::<E>(client, (stored, &current.values), (&kept.item, &holds))?;
        write.companions.extend(moves);
        write
            .companions
            .push(delete_old::<E>(client, old, stored, expected)?);
        match single::send(client, write).await {
            Ok(_) => return kept.into_entity(),
            Err(error) => match failed_on(&error, &new, old) {
                Failed::NewKeyTaken => return Err(taken(error)),
                Failed::OldMoved if attempt < GUARDED_ATTEMPTS && current.raced(&error) => continue,
                _ => return Err(managed::version_conflict::<E>(error, expected)),
            },
        }
    }
}

/// The Delete of the item under `old`, if it is still as read: the unique
/// values it held, its version (the one the caller's entity expects), and
/// not deleted meanwhile.
fn delete_old<E: Entity>(
    client: &Client,
    old: &PrimaryKey<E>,
    stored: &Item,
    expected: Option<u64>,
) -> Result<Companion> {
    let mut condition: Condition<E> = unique::still_holds::<E>(stored);
    if let Some(version) = managed::with_version::<E>(None, expected) {
        condition = condition.and(version);
    }
    if let Some(live) = super::lifecycle::not_deleted::<E>() {
        condition = condition.and(live);
    }
    let expressions = condition_only(Some(&condition), "rekey")?;
    let delete = Delete::builder()
        .table_name(client.checked_table()?)
        .set_key(Some(old.to_item()))
        .expressions(expressions)
        .build()
        .map_err(|e| Error::from(crate::ValidationError::InvalidRequest(e.to_string())))?;
    Ok(Companion {
        key: old.to_item(),
        item: TransactWriteItem::builder().delete(delete).build(),
        violation: None,
        reclaim: None,
        // Its failed condition is the write's: reported with the old item.
        slot: true,
    })
}

/// Which item a failed move failed on.
enum Failed {
    NewKeyTaken,
    OldMoved,
    Other,
}

fn failed_on<E: Entity>(error: &Error, new: &PrimaryKey<E>, old: &PrimaryKey<E>) -> Failed {
    let Error::ConditionFailed { old: found, .. } = error else {
        return Failed::Other;
    };
    let key_of = |item: &Item| -> Item {
        item.iter()
            .filter(|(name, _)| super::is_table_key::<E>(name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    };
    match found.as_deref().map(key_of) {
        Some(key) if key == new.to_item() => Failed::NewKeyTaken,
        Some(key) if key == old.to_item() => Failed::OldMoved,
        // No item returned: the old one went.
        None => Failed::OldMoved,
        Some(_) => Failed::Other,
    }
}

/// The new key's failed condition: an item holds it.
fn taken(error: Error) -> Error {
    match error {
        Error::ConditionFailed {
            entity,
            old,
            source,
            ..
        } => Error::ConditionFailed {
            entity,
            why: FailedCondition::Exists,
            old,
            source,
        },
        other => other,
    }
}
