//! Deletes: `delete`, `remove`, and for `#[entity(soft_delete)]` entities
//! `purge` and `restore`.
//!
//! A soft-deleted item stays in its partition with its deletion time, out
//! of every secondary index (its composed index keys are removed) and out of
//! every read unless asked for; `restore` puts its index keys back, `purge`
//! deletes it for good. Unique values are freed on delete (and taken again
//! on restore) unless the entity declares `soft_delete(keep_unique)`.

use super::lifecycle::{self, is_gone, soft_delete_update};
use super::managed::{self, Mode, Stamped};
use super::render::render_update;
use super::rmw::{read_modify_write, Start, Step};
use super::single::{Action, IdentityGuard, SingleWrite};
use super::unique;
use super::whole_write::WholeWrite;
use super::{and, exists, missing_as_not_found, ReturnNothing, ReturnOld, Returning};
use crate::error::{Error, Result};
use crate::limits::{check_item, check_primary_key};
use crate::scoping::{Reaches, Scope, ScopeKey};
use crate::Client;
use entity_core::expr::Condition;
use entity_core::lifecycle::SoftDeleteModel;
use entity_core::{Entity, Item, PrimaryKey};
use std::marker::PhantomData;

/// A delete: `delete` succeeds whether or not the item exists, `remove`
/// fails with `Error::NotFound` when it does not, `purge` deletes a
/// soft-delete entity's item for good. For an `#[entity(soft_delete)]`
/// entity, `delete` and `remove` mark the item deleted instead.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// client.delete(Doc::key("d1")).await?;
/// let old: Option<Doc> = client.remove(Doc::key("d2")).return_old().await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct Delete<E, R = ReturnNothing> {
    client: Client,
    key: PrimaryKey<E>,
    condition: Option<Condition<E>>,
    expected: Option<u64>,
    must_exist: bool,
    /// Delete the item even if the entity soft-deletes.
    hard: bool,
    token: Option<String>,
    /// A tenant client's delete: only of an absent item or one of `E`
    /// ([`IdentityGuard`](super::single::IdentityGuard)).
    identity_guard: bool,
    returning: PhantomData<fn() -> R>,
}

impl Client {
    fn delete_builder<E: Entity>(&self, key: PrimaryKey<E>, must_exist: bool) -> Delete<E> {
        Delete {
            client: self.clone(),
            key,
            condition: must_exist.then(exists::<E>),
            expected: None,
            must_exist,
            hard: false,
            token: None,
            identity_guard: false,
            returning: PhantomData,
        }
    }

    /// `delete` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn delete_any<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        self.delete_builder(key, false)
    }

    /// `remove` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn remove_any<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        self.delete_builder(key, true)
    }

    /// `purge` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn purge_any<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        let mut purge = self.delete_builder(key, false);
        purge.hard = true;
        purge
    }
}

impl<S: Scope> Client<S> {
    /// Deletes the item with this key, if any (marks it deleted, for a
    /// soft-delete entity).
    pub fn delete<E: Entity>(&self, key: impl ScopeKey<E, S>) -> Delete<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>()
            .delete_any(key.complete(&self.scope))
            .guarded(S::GUARDED)
    }

    /// Deletes the item with this key; `Error::NotFound` if there is none
    /// (or, for a soft-delete entity, if it is already deleted).
    pub fn remove<E: Entity>(&self, key: impl ScopeKey<E, S>) -> Delete<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>()
            .remove_any(key.complete(&self.scope))
            .guarded(S::GUARDED)
    }

    /// Deletes the item for good, deleted or not: the DeleteItem a
    /// soft-delete entity's `delete` does not send.
    pub fn purge<E: Entity>(&self, key: impl ScopeKey<E, S>) -> Delete<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>()
            .purge_any(key.complete(&self.scope))
            .guarded(S::GUARDED)
    }

    /// Restores a soft-deleted item (`Error::NotFound` when there is no
    /// deleted item with this key).
    pub fn restore<E: Entity>(&self, key: impl ScopeKey<E, S>) -> Restore<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>()
            .restore_any(key.complete(&self.scope))
            .guarded(S::GUARDED)
    }
}

impl<E, R> Delete<E, R> {
    /// Deletes only an absent item or one of this entity (a tenant
    /// client's deletes).
    pub(crate) fn guarded(mut self, on: bool) -> Self {
        self.identity_guard = on;
        self
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> Delete<E, R> {
    /// Deletes only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = and(self.condition.take(), Some(condition));
        self
    }

    /// Deletes only if the stored version is `version`
    /// (`Error::VersionConflict` otherwise); for `#[entity(version)]`
    /// entities.
    pub fn expected_version(mut self, version: u64) -> Self {
        self.expected = Some(version);
        self
    }

    /// Sends the delete as a transaction with this client request token.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Returns the deleted item, if any (a single-item call; not for
    /// entities whose unique values a delete frees).
    pub fn return_old(self) -> Delete<E, ReturnOld> {
        Delete {
            client: self.client,
            key: self.key,
            condition: self.condition,
            expected: self.expected,
            must_exist: self.must_exist,
            hard: self.hard,
            token: self.token,
            identity_guard: self.identity_guard,
            returning: PhantomData,
        }
    }

    /// The tenant client's guard, if this is its delete.
    fn identity(&self) -> Option<IdentityGuard> {
        IdentityGuard::of::<E>(self.identity_guard)
    }

    /// The soft delete this delete is, if it is one.
    fn soft(&self) -> Option<SoftDeleteModel> {
        E::MODEL.lifecycle.soft_delete.filter(|_| !self.hard)
    }

    async fn send(self) -> Result<R::Output> {
        check_primary_key(&self.key)?;
        managed::check_expected::<E>(self.expected)?;
        let (expected, must_exist, soft) = (self.expected, self.must_exist, self.soft());
        let frees_unique =
            !E::MODEL.managed.unique.is_empty() && !soft.is_some_and(|soft| soft.keep_unique);
        let result = match soft {
            Some(soft) if E::MODEL.lifecycle.history.is_some() => {
                self.soft_delete_with_history(&soft, frees_unique).await
            }
            _ => self.delete_item(frees_unique).await,
        };
        let attributes = match result {
            // Nothing to mark: no item, or one already deleted.
            Err(Error::ConditionFailed { old, .. })
                if soft.is_some_and(|soft| is_gone(old.as_deref(), &soft)) =>
            {
                if must_exist {
                    return Err(Error::NotFound {
                        entity: E::MODEL.name,
                    });
                }
                None
            }
            Err(e) => {
                let e = managed::version_conflict::<E>(e, expected);
                return Err(if must_exist {
                    missing_as_not_found(e)
                } else {
                    e
                });
            }
            Ok(attributes) => attributes,
        };
        R::output(E::MODEL.name, attributes)
    }

    /// The DeleteItem, or for a soft delete the UpdateItem that marks the
    /// item.
    fn write(&self, condition: Option<Condition<E>>) -> Result<SingleWrite> {
        let condition = managed::with_version(condition, self.expected);
        let mut write = match self.soft() {
            Some(soft) => {
                // Only an item that exists and is not deleted yet is marked.
                let not_deleted = entity_core::__private::condition_not_exists(soft.attribute);
                let condition = and(condition, Some(exists::<E>().and(not_deleted)));
                let update = soft_delete_update::<E>(&self.client, &soft);
                let rendered = render_update(&self.key, update, condition)?;
                let action = Action::Update {
                    key: self.key.to_item(),
                    expression: rendered.expression,
                };
                SingleWrite::new(E::MODEL.name, action, rendered.expressions)
            }
            None => {
                let expressions = super::condition_only(condition.as_ref(), "delete condition")?;
                let mut write = SingleWrite::new(
                    E::MODEL.name,
                    Action::Delete {
                        key: self.key.to_item(),
                    },
                    expressions,
                );
                write.idempotent = condition.is_none();
                write
            }
        };
        write.token = self.token.clone();
        write.identity = self.identity();
        write.return_value = R::return_value();
        Ok(write)
    }

    /// A soft delete of an entity that keeps history: the snapshot of the
    /// deleted version goes in the same transaction (and the freed
    /// sentinels, if any).
    async fn soft_delete_with_history(
        self,
        soft: &SoftDeleteModel,
        frees_unique: bool,
    ) -> Result<Option<Item>> {
        let not_deleted = entity_core::__private::condition_not_exists(soft.attribute);
        let completed =
            super::render::completed(&self.key, soft_delete_update::<E>(&self.client, soft))?;
        let update = super::history_update::HistoryUpdate {
            client: &self.client,
            key: &self.key,
            completed,
            condition: and(self.condition.clone(), Some(exists::<E>().and(not_deleted))),
            expected: self.expected,
            must_exist: self.must_exist,
            token: self.token.clone(),
            identity: self.identity(),
        };
        let client = self.client.clone();
        let (old, _) = update
            .send(|current| match (&current.item, frees_unique) {
                (Some(stored), true) => unique::moves::<E>(&client, &current.values, &[], stored),
                _ => Ok(Vec::new()),
            })
            .await?;
        Ok(match R::return_value() {
            aws_sdk_dynamodb::types::ReturnValue::AllOld => old,
            _ => None,
        })
    }

    /// Deletes (or marks) the item; when it frees unique values, reads it
    /// first and deletes its sentinels in the same transaction,
    /// conditioned on its unique attributes being as read.
    async fn delete_item(self, frees_unique: bool) -> Result<Option<Item>> {
        let start = match frees_unique {
            true => Start::Read(&self.key, self.identity()),
            false => Start::Blind,
        };
        let (_, attributes) = read_modify_write(&self.client, start, |current| {
            if !frees_unique {
                return Ok(Step::Send(self.write(self.condition.clone())?, ()));
            }
            let Some(stored) = &current.item else {
                return match self.must_exist {
                    true => Err(Error::NotFound {
                        entity: E::MODEL.name,
                    }),
                    false => Ok(Step::Done(())),
                };
            };
            let guarded = and(self.condition.clone(), Some(current.unique_guard()));
            let mut write = self.write(guarded)?;
            write.companions = unique::moves::<E>(&self.client, &current.values, &[], stored)?;
            Ok(Step::Send(write, ()))
        })
        .await?;
        Ok(attributes)
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> crate::ops::operation::Operation
    for Delete<E, R>
{
    type Output = R::Output;
    const READS_FIRST: bool = true;

    fn describe(&self) -> crate::trace::Op<'_> {
        crate::trace::Op {
            operation: if self.hard {
                "purge"
            } else if self.must_exist {
                "remove"
            } else {
                "delete"
            },
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl std::future::Future<Output = Result<R::Output>> + Send + 'static {
        self.send()
    }
}

crate::ops::operation::operation!([E: Entity + Send + 'static, R: Returning<E>] Delete<E, R> => R::Output);

/// A restore of a soft-deleted item: its index keys composed again, the
/// deletion mark (and the TTL the delete set) removed, its unique values
/// taken again. `.await` returns the restored entity.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app", soft_delete)] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// client.delete(Doc::key("d1")).await?;          // marked deleted
/// let doc: Doc = client.restore(Doc::key("d1")).await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct Restore<E> {
    client: Client,
    key: PrimaryKey<E>,
    /// A tenant client's restore: only of an item of `E`.
    identity_guard: bool,
}

impl Client {
    /// `restore` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn restore_any<E: Entity>(&self, key: PrimaryKey<E>) -> Restore<E> {
        Restore {
            client: self.clone(),
            key,
            identity_guard: false,
        }
    }
}

impl<E> Restore<E> {
    /// Restores only an item of this entity (a tenant client's restores).
    pub(crate) fn guarded(mut self, on: bool) -> Self {
        self.identity_guard = on;
        self
    }
}

impl<E: Entity + Send + 'static> Restore<E> {
    async fn send(self) -> Result<E> {
        let identity = IdentityGuard::of::<E>(self.identity_guard);
        check_primary_key(&self.key)?;
        let not_found = || Error::NotFound {
            entity: E::MODEL.name,
        };
        let soft = E::MODEL.lifecycle.soft_delete.ok_or_else(not_found)?;
        let start = Start::Read(&self.key, identity);
        let mut expected = None;
        let sent = read_modify_write(&self.client, start, |current| {
            let Some(stored) = current
                .item
                .clone()
                .filter(|i| i.contains_key(soft.attribute))
            else {
                return Err(not_found());
            };
            let (stamped, removes) = restored::<E>(&self.client, stored, &soft)?;
            check_item(E::MODEL, &stamped.item)?;
            let deleted = entity_core::__private::condition_exists::<E>(soft.attribute);
            let condition = managed::with_version(Some(deleted), stamped.expected);
            // A deleted item holds no values, unless the delete kept them.
            let values = match soft.keep_unique {
                true => Vec::new(),
                false => super::managed::created_values(&stamped)?,
            };
            // An encrypted item is signed whole: it is put back whole (the
            // put leaves the deletion marks out).
            let encrypted = E::MODEL.encrypts();
            let write = WholeWrite {
                item: std::borrow::Cow::Borrowed(&stamped.item),
                upsert: !encrypted,
                removes: if encrypted { &[] } else { &removes },
                condition: condition.as_ref(),
                identity,
                held: &[],
                holds: &values,
            }
            .plan(&self.client)?;
            expected = stamped.expected;
            Ok(Step::Send(write, stamped))
        })
        .await;
        match sent {
            Ok((stamped, _)) => stamped.into_entity(),
            Err(Error::ConditionFailed { old, .. })
                if !old
                    .as_deref()
                    .is_some_and(|i| i.contains_key(soft.attribute)) =>
            {
                Err(not_found())
            }
            Err(e) => Err(managed::version_conflict::<E>(e, expected)),
        }
    }
}

/// The stored item as it is restored: without the deletion mark (and the
/// TTL the delete set), stamped as a write of the entity (`updated_at`, the
/// version), its index keys composed again. Also the attributes the restore
/// removes.
fn restored<E: Entity>(
    client: &Client,
    stored: Item,
    soft: &SoftDeleteModel,
) -> Result<(Stamped<E>, Vec<&'static str>)> {
    let (stored, removes) = lifecycle::undeleted::<E>(stored, soft);
    let entity = E::from_item(stored)?;
    Ok((managed::stamp(client, &entity, Mode::Replace)?, removes))
}

impl<E: Entity + Send + 'static> crate::ops::operation::Operation for Restore<E> {
    type Output = E;
    const READS_FIRST: bool = true;

    fn describe(&self) -> crate::trace::Op<'_> {
        crate::trace::Op {
            operation: "restore",
            entity: E::MODEL.name,
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl std::future::Future<Output = Result<E>> + Send + 'static {
        self.send()
    }
}

crate::ops::operation::operation!([E: Entity + Send + 'static] Restore<E> => E);
