//! `update` and `patch`: typed changes to one item.

use super::render::{completed, render_update};
use super::rmw::GUARDED_ATTEMPTS;
use super::single::{self, Action, SingleWrite};
use super::{
    and, exists, missing_as_not_found, ReturnNew, ReturnNothing, ReturnOld, ReturnUpdatedNew,
    ReturnUpdatedOld, Returning,
};
use super::{lifecycle, managed};
use crate::error::{Error, FailedCondition, Result, ValidationError};
use crate::limits::check_primary_key;
use crate::scoping::{Reaches, Scope, ScopeKey};
use crate::Client;
use aws_sdk_dynamodb::types::ReturnValue;
use entity_core::attr::{SetMember, ToAttribute};
use entity_core::expr::{Attr, Condition, IndexChange, IntoAttr, Numeric, Settable, Update};
use entity_core::{Entity, Item, PrimaryKey};
use std::marker::PhantomData;

/// An UpdateItem built from the entity's field handles.
///
/// Table key composites have no setter; index key composites change through
/// the entity's generated group setter, applied with
/// [`apply`](UpdateItem::apply), which recomposes their index keys.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32, title: Option<String> }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let f = Doc::fields();
/// let doc: Doc = client
///     .patch(Doc::key("d1"))
///     .add(f.views, 1u32)
///     .remove(f.title)
///     .condition(f.views.lt(1000u32))
///     .return_new()
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct UpdateItem<E, R = ReturnNothing> {
    client: Client,
    key: PrimaryKey<E>,
    update: Update<E>,
    condition: Option<Condition<E>>,
    /// A condition of the caller's (or an expected version): a repeat of
    /// the update may then report differently.
    conditional: bool,
    expected: Option<u64>,
    must_exist: bool,
    token: Option<String>,
    /// A tenant client's update: only of an absent item or one of `E`
    /// ([`IdentityGuard`](super::single::IdentityGuard)).
    identity_guard: bool,
    returning: PhantomData<R>,
}

impl Client {
    /// `update` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn update_any<E: Entity>(&self, key: PrimaryKey<E>) -> UpdateItem<E> {
        UpdateItem {
            client: self.clone(),
            key,
            update: Update::new(),
            condition: None,
            conditional: false,
            expected: None,
            must_exist: false,
            token: None,
            identity_guard: false,
            returning: PhantomData,
        }
    }

    /// `patch` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn patch_any<E: Entity>(&self, key: PrimaryKey<E>) -> UpdateItem<E> {
        UpdateItem {
            client: self.clone(),
            key,
            update: Update::new(),
            condition: Some(exists::<E>()),
            conditional: false,
            expected: None,
            must_exist: true,
            token: None,
            identity_guard: false,
            returning: PhantomData,
        }
    }
}

impl<S: Scope> Client<S> {
    /// Changes an item, creating it if it does not exist. A soft-deleted
    /// item (`#[entity(soft_delete)]`), or an expired one DynamoDB has not
    /// deleted yet, is not changed: `Error::NotFound`, as for a read;
    /// `restore` a deleted one, or `put` a new one over it.
    pub fn update<E: Entity>(&self, key: impl ScopeKey<E, S>) -> UpdateItem<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>()
            .update_any(key.complete(&self.scope))
            .guarded(S::GUARDED)
    }

    /// Changes an item that must exist (`Error::NotFound` otherwise, also
    /// for a soft-deleted or expired item).
    pub fn patch<E: Entity>(&self, key: impl ScopeKey<E, S>) -> UpdateItem<E>
    where
        S: Reaches<E>,
    {
        self.reach::<E>()
            .patch_any(key.complete(&self.scope))
            .guarded(S::GUARDED)
    }
}

impl<E, R> UpdateItem<E, R> {
    /// Changes only an absent item or one of this entity (a tenant
    /// client's updates).
    pub(crate) fn guarded(mut self, on: bool) -> Self {
        self.identity_guard = on;
        self
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> UpdateItem<E, R> {
    fn map(mut self, change: impl FnOnce(Update<E>) -> Update<E>) -> Self {
        self.update = change(self.update);
        self
    }

    /// `SET attr = value`.
    pub fn set<T, M: Settable>(self, attr: Attr<E, T, M>, value: impl IntoAttr<T>) -> Self {
        self.map(|u| u.set(attr, value))
    }

    /// `SET attr = value` for a field stored through serde
    /// (`#[entity(serde)]`). (Feature `serde`.)
    #[cfg(feature = "serde")]
    pub fn set_serde<T: serde::Serialize, M: Settable>(
        self,
        attr: Attr<E, T, M>,
        value: &T,
    ) -> Self {
        self.map(|u| u.set_serde(attr, value))
    }

    /// Sets `attr` only if it has no value yet.
    pub fn set_if_not_exists<T, M: Settable>(
        self,
        attr: Attr<E, T, M>,
        value: impl IntoAttr<T>,
    ) -> Self {
        self.map(|u| u.set_if_not_exists(attr, value))
    }

    /// Removes an optional field.
    pub fn remove<T, M: Settable>(self, attr: Attr<E, Option<T>, M>) -> Self {
        self.map(|u| u.remove(attr))
    }

    /// Adds `n` to a number (from 0 if absent).
    pub fn add<T: Numeric, M: Settable>(self, attr: Attr<E, T, M>, n: impl IntoAttr<T>) -> Self {
        self.map(|u| u.add(attr, n))
    }

    /// Subtracts `n` from a number (from 0 if absent).
    pub fn subtract<T: Numeric, M: Settable>(
        self,
        attr: Attr<E, T, M>,
        n: impl IntoAttr<T>,
    ) -> Self {
        self.map(|u| u.subtract(attr, n))
    }

    /// Appends to a list.
    pub fn append<X: ToAttribute, M: Settable>(
        self,
        attr: Attr<E, Vec<X>, M>,
        items: Vec<X>,
    ) -> Self {
        self.map(|u| u.append(attr, items))
    }

    /// Prepends to a list.
    pub fn prepend<X: ToAttribute, M: Settable>(
        self,
        attr: Attr<E, Vec<X>, M>,
        items: Vec<X>,
    ) -> Self {
        self.map(|u| u.prepend(attr, items))
    }

    /// Adds members to a set.
    pub fn add_to_set<S, M: Settable>(self, attr: Attr<E, S, M>, members: S) -> Self
    where
        S: ToAttribute + IntoIterator,
        S::Item: SetMember,
    {
        self.map(|u| u.add_to_set(attr, members))
    }

    /// Deletes members from a set.
    pub fn delete_from_set<S, M: Settable>(self, attr: Attr<E, S, M>, members: S) -> Self
    where
        S: ToAttribute + IntoIterator,
        S::Item: SetMember,
    {
        self.map(|u| u.delete_from_set(attr, members))
    }

    /// Applies a group change of index key composites, with their index keys
    /// recomposed (`Task::set_priority_status(3, Status::Done)`).
    pub fn apply(self, change: IndexChange<E>) -> Self {
        self.map(|u| u.apply(change))
    }

    /// Applies changes built separately.
    pub fn changes(self, update: Update<E>) -> Self {
        self.map(|_| update)
    }

    /// Updates only if `condition` holds.
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = and(self.condition.take(), Some(condition));
        self.conditional = true;
        self
    }

    /// Updates only if the stored version is `version`
    /// (`Error::VersionConflict` otherwise), for `#[entity(version)]`
    /// entities: the read-modify-write of optimistic locking. Every update
    /// of a versioned entity adds one to its version, with or without this.
    pub fn expected_version(mut self, version: u64) -> Self {
        self.expected = Some(version);
        self.conditional = true;
        self
    }

    /// Sends the update as a transaction with this client request token:
    /// the same token within ten minutes does not apply twice, so a caller
    /// that retries after an error cannot apply it twice either.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    fn returning<R2: Returning<E>>(self) -> UpdateItem<E, R2> {
        UpdateItem {
            client: self.client,
            key: self.key,
            update: self.update,
            condition: self.condition,
            conditional: self.conditional,
            expected: self.expected,
            must_exist: self.must_exist,
            token: self.token,
            identity_guard: self.identity_guard,
            returning: PhantomData,
        }
    }

    /// Returns the whole item as it was (`None` if it did not exist).
    pub fn return_old(self) -> UpdateItem<E, ReturnOld> {
        self.returning()
    }

    /// Returns the whole item as it is after the update.
    pub fn return_new(self) -> UpdateItem<E, ReturnNew> {
        self.returning()
    }

    /// Returns the changed attributes as they were.
    pub fn return_updated_old(self) -> UpdateItem<E, ReturnUpdatedOld> {
        self.returning()
    }

    /// Returns the changed attributes as they are now.
    pub fn return_updated_new(self) -> UpdateItem<E, ReturnUpdatedNew> {
        self.returning()
    }

    async fn send(self) -> Result<R::Output> {
        let entity = E::MODEL.name;
        check_primary_key(&self.key)?;
        // Checked before the managed fields are stamped, which would make
        // any update look like a change.
        if self.update.is_empty() {
            return Err(ValidationError::EmptyUpdate { entity }.into());
        }
        managed::check_expected::<E>(self.expected)?;
        let fixed = self.update.fixed_composites().to_vec();
        // A soft-deleted or expired item reads as missing: it is not
        // changed (a deleted one's index keys stay out of the indexes). An
        // item of an older entity version is not changed as it is stored:
        // the update names the current version's attributes, which its
        // upgrade may not read. Neither is a condition of the caller's: a
        // repeat meets the same item again.
        let mut this = self;
        let live = lifecycle::live::<E>(&this.client);
        this.condition = and(
            and(this.condition.take(), live),
            Some(super::current_version::<E>()),
        );
        let client = this.client.clone();
        let key = this.key.to_item();
        let mut attempt = 1;
        let sent = loop {
            let again = this.copy();
            match this.send_once().await {
                // Upgraded in place first (as `migrate` rewrites it), then
                // updated as the entity it reads as. A deleted or expired
                // one is not found as it is; one of a version no upgrade
                // reads (a newer one) is refused as `get` refuses it.
                Err(e)
                    if attempt < GUARDED_ATTEMPTS
                        && e.old_item().is_some_and(|old| {
                            of_another_version::<E>(old) && lifecycle::shown::<E>(&client, old)
                        }) =>
                {
                    // Read again (decrypted, for an encrypted entity).
                    let stored = client.get_raw(E::MODEL.name, key.clone(), true).await?;
                    if let Some(stored) = stored {
                        super::rewrite::upgrade_in_place::<E>(&client, stored).await?;
                    }
                    attempt += 1;
                    this = again;
                }
                sent => break sent,
            }
        };
        sent.map_err(|e| lifecycle::deleted_as_not_found::<E>(&client, e))
            .map_err(|e| composites_differ::<E>(e, &fixed))
    }

    async fn send_once(self) -> Result<R::Output> {
        match E::MODEL.lifecycle.history {
            Some(_) => self.send_with_history().await,
            None => self.send_plain().await,
        }
    }

    /// The same update, to send again.
    fn copy(&self) -> Self {
        Self {
            client: self.client.clone(),
            key: self.key.clone(),
            update: self.update.clone(),
            condition: self.condition.clone(),
            conditional: self.conditional,
            expected: self.expected,
            must_exist: self.must_exist,
            token: self.token.clone(),
            identity_guard: self.identity_guard,
            returning: PhantomData,
        }
    }

    async fn send_plain(self) -> Result<R::Output> {
        let entity = E::MODEL.name;
        let update = managed::stamp_update(&self.client, self.update);
        // A repeat changes nothing more if no arithmetic or list change is
        // in it, no version is bumped, and no condition of the caller's can
        // read its own effect (`patch`'s existence check cannot).
        let idempotent =
            update.is_idempotent() && E::MODEL.managed.version.is_none() && !self.conditional;
        let condition = managed::with_version(self.condition, self.expected);
        let rendered = render_update(&self.key, update, condition)?;
        let mut write = SingleWrite::new(
            entity,
            Action::Update {
                key: self.key.to_item(),
                expression: rendered.expression,
            },
            rendered.expressions,
        );
        write.idempotent = idempotent;
        write.identity = super::single::IdentityGuard::of::<E>(self.identity_guard);
        write.token = self.token;
        write.return_value = R::return_value();
        let attributes = single::send(&self.client, write).await.map_err(|e| {
            let e = managed::version_conflict::<E>(e, self.expected);
            if self.must_exist {
                missing_as_not_found(e)
            } else {
                e
            }
        })?;
        R::output(entity, attributes)
    }
}

/// A failed condition of an update carrying a group setter, where the
/// stored item holds other composites than the ones given: names them.
fn composites_differ<E: Entity>(
    error: Error,
    fixed: &[(String, Option<aws_sdk_dynamodb::types::AttributeValue>)],
) -> Error {
    match error {
        Error::ConditionFailed {
            entity,
            why: FailedCondition::Condition,
            old: Some(old),
            source,
        } if !fixed.is_empty() => {
            let differ: Vec<&'static str> = fixed
                .iter()
                .filter(|(attribute, value)| old.get(attribute) != value.as_ref())
                .filter_map(|(attribute, _)| {
                    let field = E::MODEL.fields.iter().find(|f| f.attribute == attribute);
                    field.map(|f| f.field)
                })
                .collect();
            let why = match differ.is_empty() {
                true => FailedCondition::Condition,
                false => FailedCondition::Composites { differ },
            };
            Error::ConditionFailed {
                entity,
                why,
                old: Some(old),
                source,
            }
        }
        other => other,
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> UpdateItem<E, R> {
    /// An update of an entity that keeps history: the snapshot of the
    /// version it writes goes in the same transaction, so the item it leaves
    /// must be known. The item is read (strongly consistent), the update
    /// applied to it in memory, and the write conditioned on the version
    /// read; another write in between is read again and retried (unless the
    /// caller expects a version: then it is a `VersionConflict`).
    async fn send_with_history(self) -> Result<R::Output> {
        let entity = E::MODEL.name;
        let completed = completed(&self.key, managed::stamp_update(&self.client, self.update))?;
        let changed: Vec<String> = completed.attributes().map(str::to_owned).collect();
        let write = super::history_update::HistoryUpdate {
            client: &self.client,
            key: &self.key,
            completed,
            condition: self.condition,
            expected: self.expected,
            must_exist: self.must_exist,
            token: self.token,
            identity: super::single::IdentityGuard::of::<E>(self.identity_guard),
        };
        let (old, new) = write.send(|_| Ok(Vec::new())).await.map_err(|e| {
            if self.must_exist {
                missing_as_not_found(e)
            } else {
                e
            }
        })?;
        R::output(entity, returned::<E, R>(old, new, &changed))
    }
}

/// What a history update returns, from the items before and after it (known
/// exactly: the write was conditioned on the version read).
fn returned<E, R: Returning<E>>(old: Option<Item>, new: Item, changed: &[String]) -> Option<Item> {
    let only_changed = |item: Item| -> Item {
        item.into_iter()
            .filter(|(name, _)| changed.contains(name))
            .collect()
    };
    match R::return_value() {
        ReturnValue::AllOld => old,
        ReturnValue::AllNew => Some(new),
        ReturnValue::UpdatedOld => old.map(only_changed),
        ReturnValue::UpdatedNew => Some(only_changed(new)),
        _ => None,
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> crate::ops::operation::Operation
    for UpdateItem<E, R>
{
    type Output = R::Output;
    const READS_FIRST: bool = true;

    fn describe(&self) -> crate::trace::Op<'_> {
        crate::trace::Op {
            operation: if self.must_exist { "patch" } else { "update" },
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

crate::ops::operation::operation!([E: Entity + Send + 'static, R: Returning<E>] UpdateItem<E, R> => R::Output);

/// Whether a stored item of `E` is of another entity version (older, or
/// newer: written by a newer release).
fn of_another_version<E: Entity>(item: &Item) -> bool {
    entity_core::__private::check_identity(item, E::MODEL.identity_attribute, E::MODEL.name).is_ok()
        && item.contains_key(E::MODEL.version_attribute)
        && entity_core::__private::check_version(item, E::MODEL).is_err()
}
