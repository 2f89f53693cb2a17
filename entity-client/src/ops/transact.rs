//! Transactions: `transact_write` (put, create, update, delete, condition
//! check, across entities) and `transact_get`.

use super::managed::{self, Mode};
use super::operation::{operation, Operation};
use super::render::render_update;
use super::single::{self, IdentityGuard};
use super::visibility::{Shown, Visibility};
use super::whole_write::WholeWrite;
use super::Companion;
use super::{and, condition_only, not_exists, Conditional};
use crate::error::{from_sdk, Error, Result, ValidationError};
use crate::keys::{KeyId, KeySet};
use crate::limits::{
    check_idempotency_token, check_item, check_primary_key, MAX_TRANSACTION_ITEMS,
};
use crate::scoping::{Reaches, Reads, Scope, ScopeKey, Unscoped};
use crate::trace::Op;
use crate::Client;
use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Get, TransactGetItem, TransactWriteItem, Update as SdkUpdate,
};
use entity_core::expr::{Condition, Update};
use entity_core::IndexModel;
use entity_core::{Entity, Item, PrimaryKey, WithoutSoftDelete, WithoutUnique};
use std::future::Future;

/// A TransactWriteItems: all of its writes happen, or none.
///
/// A canceled transaction fails with [`Error::TransactionCanceled`], one
/// reason per item in request order. At most 100 items, checked before
/// sending.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Account { id: String, balance: i64 }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let f = Account::fields();
/// client
///     .transact_write()
///     .update(Account::key("a"), entity_client::expr::Update::new().subtract(f.balance, 10i64), Some(f.balance.gte(10i64)))
///     .update(Account::key("b"), entity_client::expr::Update::new().add(f.balance, 10i64), None)
///     .idempotency_token("transfer-42")
///     .await?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct TransactWrite<S = Unscoped> {
    client: Client,
    /// The scope whose client started it: what it takes, and how it
    /// completes keys.
    scope: S,
    items: Vec<(&'static str, TransactWriteItem)>,
    /// For each item that is a unique sentinel: its constraint and value,
    /// and how to free it when its holder no longer holds the value.
    violations: Vec<Option<Violation>>,
    /// For each item a tenant client wrote: the guard its condition holds
    /// (the item is absent or of its entity).
    guards: Vec<Option<IdentityGuard>>,
    /// The items named so far, to refuse a repeat (DynamoDB would).
    keys: KeySet<()>,
    token: Option<String>,
    error: Option<Error>,
}

impl<S: Scope> Client<S> {
    /// Starts a write transaction.
    pub fn transact_write(&self) -> TransactWrite<S> {
        TransactWrite {
            client: self.unscoped(),
            scope: self.scope.clone(),
            items: Vec::new(),
            violations: Vec::new(),
            guards: Vec::new(),
            keys: KeySet::default(),
            token: None,
            error: None,
        }
    }

    /// Starts a read transaction.
    pub fn transact_get(&self) -> TransactGet<S> {
        TransactGet {
            client: self.unscoped(),
            scope: self.scope.clone(),
            guards: Vec::new(),
            items: Vec::new(),
            shown: Shown::default(),
            keys: KeySet::default(),
            error: None,
        }
    }
}

fn build_error(e: impl std::fmt::Display) -> Error {
    ValidationError::InvalidRequest(e.to_string()).into()
}

/// Holds the first error of a builder's calls until it is sent.
fn hold(error: &mut Option<Error>, e: Error) {
    error.get_or_insert(e);
}

impl<S: Scope> TransactWrite<S> {
    /// Adds an item for `key`, unless the key is already in the
    /// transaction.
    fn push(
        mut self,
        entity: &'static str,
        key: KeyId,
        item: Result<TransactWriteItem>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        let item = item.and_then(|item| {
            self.keys.insert_unique("transaction", key, ())?;
            Ok(item)
        });
        match item {
            Ok(item) => {
                self.items.push((entity, item));
                self.violations.push(None);
                self.guards.push(guard);
            }
            Err(e) => hold(&mut self.error, e),
        }
        self
    }

    /// Adds a unique sentinel's write.
    fn push_companion(
        mut self,
        entity: &'static str,
        primary: &IndexModel,
        companion: Companion,
        guard: Option<IdentityGuard>,
    ) -> Self {
        let key = KeyId::of_item(primary, &companion.key);
        let added = match key {
            Some(key) => self
                .keys
                .insert_unique("transaction", key, ())
                .map_err(|e| match &companion.violation {
                    // Two writes of the transaction claim one unique value:
                    // the second is refused as the value's claim would be.
                    Some((constraint, value)) => Error::UniqueViolation {
                        entity,
                        constraint,
                        value: value.clone(),
                    },
                    None => Error::from(e),
                }),
            None => Ok(()),
        };
        match added {
            Ok(()) => {
                self.items.push((entity, companion.item));
                self.violations
                    .push(companion.violation.map(|(constraint, value)| Violation {
                        entity,
                        constraint,
                        value,
                        reclaim: companion.reclaim,
                    }));
                // A tenant write's snapshot slot that another entity's item
                // holds is refused like the write itself.
                self.guards.push(guard.filter(|_| companion.slot));
            }
            Err(e) => hold(&mut self.error, e),
        }
        self
    }

    /// Adds the item `build` makes for `key`, after checking the key;
    /// `build` renders its condition through `guarded`.
    fn keyed<E: Entity>(
        self,
        key: PrimaryKey<E>,
        guard: Option<IdentityGuard>,
        build: impl FnOnce(&str, &PrimaryKey<E>, Guarded) -> Result<TransactWriteItem>,
    ) -> Self {
        let guarded = Guarded(guard);
        let item = check_primary_key(&key)
            .map_err(Error::from)
            .and_then(|()| build(self.client.checked_table()?, &key, guarded));
        self.push(E::MODEL.name, KeyId::of(&key), item, guard)
    }

    /// A whole-entity write, stamped (ids, timestamps, version), with the
    /// sentinels of a create.
    pub(crate) fn whole<E: Entity>(
        self,
        entity: &E,
        mode: Mode,
        condition: Option<Condition<E>>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        let stamped = match managed::stamp(&self.client, entity, mode) {
            Ok(stamped) => stamped,
            Err(e) => {
                let key = KeyId::of(&entity.primary_key());
                return self.push(E::MODEL.name, key, Err(e), guard);
            }
        };
        // The key of the stamped item: a generated id may be part of it.
        let key = KeyId::of_item(&E::MODEL.primary, &stamped.item)
            .unwrap_or_else(|| KeyId::of(&entity.primary_key()));
        self.whole_stamped(stamped, key, mode, condition, guard)
    }

    /// [`whole`](Self::whole) of an entity stamped already, whose table
    /// key is `key`.
    pub(crate) fn whole_stamped<E: Entity>(
        self,
        stamped: managed::Stamped<E>,
        key: KeyId,
        mode: Mode,
        condition: Option<Condition<E>>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        let built = (|| {
            check_item(E::MODEL, &stamped.item)?;
            let condition = match mode {
                Mode::Create => and(condition, Some(not_exists::<E>())),
                Mode::Replace => managed::with_version(
                    super::lifecycle::as_if_missing(condition),
                    stamped.expected,
                ),
            };
            // An unset `created_at` keeps the stored one: an update with
            // `if_not_exists`. A transaction cannot read first, so keys
            // composed of it could not follow: refused.
            let upsert = stamped.created_unset;
            if upsert && created_at_composes_a_key::<E>() {
                return Err(crate::ValidationError::InvalidRequest(format!(
                    "{} has keys composed of created_at: set it (from the stored item) to put the entity in a transaction",
                    E::MODEL.name
                ))
                .into());
            }
            // A create claims its unique values (a put of an entity with
            // unique values is refused at compile time: it needs the stored
            // item's values, which a transaction cannot read first).
            let values = match mode {
                Mode::Create => managed::created_values(&stamped)?,
                Mode::Replace => Vec::new(),
            };
            WholeWrite {
                item: std::borrow::Cow::Borrowed(&stamped.item),
                upsert,
                removes: &[],
                condition: condition.as_ref(),
                identity: guard,
                held: &[],
                holds: &values,
            }
            .plan(&self.client)?
            .into_transact_items(self.client.checked_table()?)
        })();
        match built {
            Ok((item, companions)) => {
                let this = self.push(E::MODEL.name, key, Ok(item), guard);
                companions.into_iter().fold(this, |tx, companion| {
                    tx.push_companion(E::MODEL.name, &E::MODEL.primary, companion, guard)
                })
            }
            Err(e) => self.push(E::MODEL.name, key, Err(e), guard),
        }
    }

    /// Writes a whole item (conditioned on its version, for a versioned
    /// entity).
    pub fn put<E: WithoutUnique>(self, entity: &E) -> Self
    where
        S: Reaches<E>,
    {
        self.scoped_whole(entity, Mode::Replace, None)
    }

    /// Writes a whole item if `condition` holds.
    pub fn put_if<E: WithoutUnique>(self, entity: &E, condition: Condition<E>) -> Self
    where
        S: Reaches<E>,
    {
        self.scoped_whole(entity, Mode::Replace, Some(condition))
    }

    /// Writes an item that must not exist yet, with its unique sentinels.
    pub fn create<E: Entity>(self, entity: &E) -> Self
    where
        S: Reaches<E>,
    {
        self.scoped_whole(entity, Mode::Create, None)
    }

    /// `entity`'s write in this transaction's scope: refused for an entity
    /// the scope does not take (another tenant's), identity-guarded where
    /// the scope is.
    fn scoped_whole<E: Entity>(
        self,
        entity: &E,
        mode: Mode,
        condition: Option<Condition<E>>,
    ) -> Self
    where
        S: Reaches<E>,
    {
        Reads::<E>::enter(&self.scope);
        match self.scope.refuse(entity) {
            Some(error) => self.refused(error),
            None => {
                let guard = IdentityGuard::of::<E>(S::GUARDED);
                self.whole(entity, mode, condition, guard)
            }
        }
    }

    /// `key` completed in this transaction's scope, and the identity guard
    /// of its write.
    fn scoped_key<E: Entity, K: ScopeKey<E, S>>(
        &self,
        key: K,
    ) -> (PrimaryKey<E>, Option<IdentityGuard>)
    where
        S: Reaches<E>,
    {
        Reads::<E>::enter(&self.scope);
        (
            key.complete(&self.scope),
            IdentityGuard::of::<E>(S::GUARDED),
        )
    }

    /// Changes an item, if `condition` (when given) holds. An entity that
    /// keeps history is refused (`ValidationError`): its snapshot needs the
    /// stored item; `client.update` writes it.
    pub fn update<E: Entity>(
        self,
        key: impl ScopeKey<E, S>,
        update: Update<E>,
        condition: Option<Condition<E>>,
    ) -> Self
    where
        S: Reaches<E>,
    {
        let (key, guard) = self.scoped_key(key);
        self.update_any(key, update, condition, guard)
    }

    pub(crate) fn update_any<E: Entity>(
        self,
        key: PrimaryKey<E>,
        update: Update<E>,
        condition: Option<Condition<E>>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        if E::MODEL.lifecycle.history.is_some() {
            // The snapshot of the version replaced needs the stored item,
            // which a transaction cannot read first.
            return self.refused(lifecycle_refusal::<E>(
                "update",
                "keeps history (its snapshot needs the stored item, which a transaction cannot read first)",
                "client.update(..)",
            ));
        }
        let update = managed::stamp_update(&self.client, update);
        // A soft-deleted or expired item is not changed (it reads as
        // missing), nor one of an older entity version (the update names
        // attributes its upgrade may not read: the transaction is
        // cancelled; `client.update` upgrades it first).
        let condition = and(condition, super::lifecycle::live::<E>(&self.client));
        let condition = and(condition, Some(super::current_version::<E>()));
        self.keyed(key, guard, |table, key, guarded| {
            let rendered = render_update(key, update, condition)?;
            let update = SdkUpdate::builder()
                .table_name(table)
                .set_key(Some(key.to_item()))
                .update_expression(rendered.expression)
                .expressions(guarded.apply(rendered.expressions))
                .build()
                .map_err(build_error)?;
            Ok(TransactWriteItem::builder().update(update).build())
        })
    }

    /// Deletes an item, if `condition` (when given) holds. A soft-delete
    /// entity is refused at compile time (its delete marks the item, which
    /// `client.delete` does; [`purge`](Self::purge) deletes it for good).
    pub fn delete<E: WithoutUnique + WithoutSoftDelete>(
        self,
        key: impl ScopeKey<E, S>,
        condition: Option<Condition<E>>,
    ) -> Self
    where
        S: Reaches<E>,
    {
        let (key, guard) = self.scoped_key(key);
        self.delete_any(key, condition, guard)
    }

    /// Deletes an item for good, a soft-delete entity's included (deleted
    /// or not), if `condition` (when given) holds.
    pub fn purge<E: WithoutUnique>(
        self,
        key: impl ScopeKey<E, S>,
        condition: Option<Condition<E>>,
    ) -> Self
    where
        S: Reaches<E>,
    {
        let (key, guard) = self.scoped_key(key);
        self.purge_any(key, condition, guard)
    }

    pub(crate) fn delete_any<E: WithoutUnique + WithoutSoftDelete>(
        self,
        key: PrimaryKey<E>,
        condition: Option<Condition<E>>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        self.purge_any(key, condition, guard)
    }

    pub(crate) fn purge_any<E: WithoutUnique>(
        self,
        key: PrimaryKey<E>,
        condition: Option<Condition<E>>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        self.keyed(key, guard, |table, key, guarded| {
            let expressions = condition_only(condition.as_ref(), "transaction condition")?;
            let delete = Delete::builder()
                .table_name(table)
                .set_key(Some(key.to_item()))
                .expressions(guarded.apply(expressions))
                .build()
                .map_err(build_error)?;
            Ok(TransactWriteItem::builder().delete(delete).build())
        })
    }

    /// Requires `condition` to hold on an item the transaction does not
    /// write.
    pub fn condition_check<E: Entity>(
        self,
        key: impl ScopeKey<E, S>,
        condition: Condition<E>,
    ) -> Self
    where
        S: Reaches<E>,
    {
        let (key, guard) = self.scoped_key(key);
        self.condition_check_any(key, condition, guard)
    }

    pub(crate) fn condition_check_any<E: Entity>(
        self,
        key: PrimaryKey<E>,
        condition: Condition<E>,
        guard: Option<IdentityGuard>,
    ) -> Self {
        // A deleted item is checked as a missing one.
        let condition = super::lifecycle::as_if_missing(Some(condition));
        self.keyed(key, guard, |table, key, guarded| {
            let expressions = condition_only(condition.as_ref(), "transaction condition")?;
            let check = ConditionCheck::builder()
                .table_name(table)
                .set_key(Some(key.to_item()))
                .expressions(guarded.apply(expressions))
                .build()
                .map_err(build_error)?;
            Ok(TransactWriteItem::builder().condition_check(check).build())
        })
    }

    /// Holds `error` (the first one held is returned when sent).
    pub(crate) fn refused(mut self, error: Error) -> Self {
        hold(&mut self.error, error);
        self
    }

    /// Takes the error held so far: for a caller that must refuse it
    /// before sending anything else (a tenant batch of transactions).
    pub(crate) fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }

    /// Sets the transaction's client request token: the same token within
    /// ten minutes does not write twice, so a caller that resends the
    /// transaction after an error cannot apply it twice. Without one, each
    /// transaction gets a random token, which the SDK's own retries reuse.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Items in the transaction so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the transaction has no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    async fn send(self) -> Result<()> {
        check_before_sending(self.error, self.items.len())?;
        self.client.require(
            |c| c.transactions,
            "TransactWriteItems",
            "a write transaction",
        )?;
        if self.client.inner.exactly_once {
            self.client.require(
                |c| c.client_request_tokens,
                "exactly-once writes",
                "a transaction is resent with its client request token, which the engine ignores; `with_exactly_once(false)` accepts that a transaction whose response is lost can apply twice",
            )?;
        }
        if let Some(token) = &self.token {
            check_idempotency_token(token)?;
        }
        let entity = self
            .items
            .first()
            .map_or("transaction", |(entity, _)| *entity);
        let mut items: Vec<TransactWriteItem> =
            self.items.into_iter().map(|(_, item)| item).collect();
        // A value a stale claim refused is freed and the transaction sent
        // again (a canceled one applied nothing), with a new token of ours:
        // never with the caller's, which names one request.
        let reclaims = self.token.is_none()
            && self
                .violations
                .iter()
                .flatten()
                .any(|v| v.reclaim.is_some());
        let mut attempt = 0;
        loop {
            attempt += 1;
            let token = self.token.clone().unwrap_or_else(single::new_token);
            // Kept for a second send only when one may follow.
            let sent = match reclaims {
                true => items.clone(),
                false => std::mem::take(&mut items),
            };
            let result = self
                .client
                .inner
                .sdk
                .transact_write_items()
                .set_transact_items(Some(sent))
                .client_request_token(&token)
                .send()
                .await
                .map_err(|e| single::transaction_error(entity, token, e));
            let (reasons, source) = match result {
                Ok(_) => return Ok(()),
                Err(Error::TransactionCanceled { reasons, source }) => (reasons, source),
                Err(other) => return Err(other),
            };
            if let Some(refusal) = guard_refusal(&self.client, &self.guards, &reasons) {
                return Err(refusal);
            }
            let Some(taken) = violated(&self.violations, &reasons) else {
                return Err(Error::TransactionCanceled { reasons, source });
            };
            let again = reclaims && attempt < super::rmw::GUARDED_ATTEMPTS;
            if let (true, Some(reclaim)) = (again, taken.reclaim) {
                if reclaim(&self.client, taken.constraint, &taken.value).await? {
                    continue;
                }
            }
            return Err(Error::UniqueViolation {
                entity: taken.entity,
                constraint: taken.constraint,
                value: taken.value.clone(),
            });
        }
    }
}

/// Whether a key of `E` is composed of its `created_at` field.
pub(crate) fn created_at_composes_a_key<E: Entity>() -> bool {
    let Some(created_at) = E::MODEL.managed.created_at else {
        return false;
    };
    std::iter::once(&E::MODEL.primary)
        .chain(E::MODEL.indexes)
        .flat_map(|index| std::iter::once(&index.pk).chain(&index.sk))
        .any(|key| key.composites.contains(&created_at.field))
}

/// A transaction canceled because a unique sentinel's value is taken.
/// A tenant client's item whose guard failed (another entity's item holds
/// its key) as `Error::TenantMismatch`, without that item.
fn guard_refusal(
    client: &Client,
    guards: &[Option<IdentityGuard>],
    reasons: &[crate::CancellationReason],
) -> Option<Error> {
    reasons
        .iter()
        .filter(|reason| reason.is_condition_failed())
        .find_map(|reason| {
            let guard = guards.get(reason.index)?.as_ref()?;
            let old = reason.item.as_ref()?;
            guard.is_foreign(old).then(|| guard.mismatch(client))
        })
}

/// A transaction write refused because of the entity's lifecycle: what
/// the transaction cannot do for it, and what does it instead.
fn lifecycle_refusal<E: Entity>(operation: &str, why: &str, instead: &str) -> Error {
    ValidationError::InvalidRequest(format!(
        "a transaction cannot {operation} a {}: it {why}; use {instead}",
        E::MODEL.name
    ))
    .into()
}

/// The identity guard of one transaction item, if it has one.
#[derive(Clone, Copy)]
struct Guarded(Option<IdentityGuard>);

impl Guarded {
    /// `expressions` with the guard ANDed to the condition.
    fn apply(self, expressions: super::Expressions) -> super::Expressions {
        match self.0 {
            Some(guard) => guard.render(expressions),
            None => expressions,
        }
    }
}

/// A unique sentinel of the transaction: whose, which value, and how to
/// free it when stale.
struct Violation {
    entity: &'static str,
    constraint: &'static str,
    value: String,
    reclaim: Option<super::Reclaim>,
}

/// The sentinel whose failed condition canceled the transaction: its
/// value is taken.
fn violated<'a>(
    violations: &'a [Option<Violation>],
    reasons: &[crate::CancellationReason],
) -> Option<&'a Violation> {
    reasons
        .iter()
        .filter(|reason| reason.is_condition_failed())
        .find_map(|reason| violations.get(reason.index)?.as_ref())
}

/// What both transactions refuse before sending: an error a builder call
/// held, no items, more items than DynamoDB allows.
fn check_before_sending(error: Option<Error>, items: usize) -> Result<()> {
    if let Some(error) = error {
        return Err(error);
    }
    if items == 0 {
        return Err(ValidationError::InvalidRequest(
            "a transaction needs at least one item".into(),
        )
        .into());
    }
    if items > MAX_TRANSACTION_ITEMS {
        return Err(ValidationError::TooManyTransactionItems {
            count: items,
            limit: MAX_TRANSACTION_ITEMS,
        }
        .into());
    }
    Ok(())
}

impl<S: Scope> Operation for TransactWrite<S> {
    type Output = ();
    const READS_FIRST: bool = true;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "transact_write",
            entity: "transaction",
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<()>> + Send + 'static {
        self.send()
    }
}

operation!([S: Scope] TransactWrite<S> => ());

/// A TransactGetItems: a consistent snapshot of items of any entities.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String }
/// # async fn demo(client: Client) -> entity_client::Result<()> {
/// let out = client.transact_get().get(Doc::key("a")).get(Doc::key("b")).await?;
/// let a: Option<Doc> = out.entity(0)?;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct TransactGet<S = Unscoped> {
    client: Client,
    scope: S,
    /// Each get's identity guard, in a guarded scope (a tenant's): an item
    /// read at a key of the tenant that is another entity's fails the read.
    guards: Vec<IdentityGuard>,
    items: Vec<(&'static str, TransactGetItem)>,
    shown: Shown,
    /// The keys read so far, to refuse a repeat (DynamoDB would).
    keys: KeySet<()>,
    error: Option<Error>,
}

/// The items of a read transaction, in request order.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactGetOutput {
    entities: Vec<&'static str>,
    /// One entry per requested key: the item as stored, or `None`.
    pub items: Vec<Option<Item>>,
    /// The rule of every read, at the time of this one: expired and
    /// soft-deleted items are not entities unless asked for.
    visibility_at: i64,
    shown: Shown,
}

impl TransactGetOutput {
    /// The `index`th item read as `E`: `None` when there was no item, or
    /// when it is expired or soft-deleted (as every read hides them, unless
    /// the transaction asked for them with `include_expired` /
    /// `include_deleted`).
    pub fn entity<E: Entity>(&self, index: usize) -> Result<Option<E>> {
        let visibility = Visibility::at::<E>(self.visibility_at, self.shown);
        match self.items.get(index) {
            Some(Some(item)) if visibility.shows(item) => Ok(Some(E::from_item(item.clone())?)),
            _ => Ok(None),
        }
    }

    /// The entity each item was requested as.
    pub fn entities(&self) -> &[&'static str] {
        &self.entities
    }
}

impl<S: Scope> TransactGet<S> {
    super::visibility::shown_methods!();

    /// Reads the item with this key.
    pub fn get<E: Entity>(mut self, key: impl ScopeKey<E, S>) -> Self
    where
        S: Reaches<E>,
    {
        Reads::<E>::enter(&self.scope);
        let key = key.complete(&self.scope);
        self.guards.extend(IdentityGuard::of::<E>(S::GUARDED));
        self.get_any(key)
    }

    pub(crate) fn get_any<E: Entity>(mut self, key: PrimaryKey<E>) -> Self {
        let item = check_primary_key(&key).map_err(Error::from).and_then(|()| {
            self.keys
                .insert_unique("transaction", KeyId::of(&key), ())?;
            let get = Get::builder()
                .table_name(self.client.checked_table()?)
                .set_key(Some(key.to_item()))
                .build()
                .map_err(build_error)?;
            Ok(TransactGetItem::builder().get(get).build())
        });
        match item {
            Ok(item) => self.items.push((E::MODEL.name, item)),
            Err(e) => hold(&mut self.error, e),
        }
        self
    }

    async fn send(self) -> Result<TransactGetOutput> {
        check_before_sending(self.error, self.items.len())?;
        self.client
            .require(|c| c.transactions, "TransactGetItems", "a read transaction")?;
        let entities: Vec<&'static str> = self.items.iter().map(|(e, _)| *e).collect();
        let output = self
            .client
            .inner
            .sdk
            .transact_get_items()
            .set_transact_items(Some(self.items.into_iter().map(|(_, item)| item).collect()))
            .send()
            .await
            .map_err(|e| {
                from_sdk(
                    "TransactGetItems",
                    entities.first().copied().unwrap_or("transaction"),
                    e,
                )
            })?;
        let items: Vec<Option<Item>> = output
            .responses
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.item)
            .collect();
        // In a guarded scope, an item of another entity at one of the keys
        // (another tenant's, under an overlapping key format) fails the
        // read, without the item.
        let foreign = items
            .iter()
            .zip(&self.guards)
            .find_map(|(item, guard)| item.as_ref().filter(|i| guard.is_foreign(i)).map(|_| guard));
        if let Some(guard) = foreign {
            return Err(guard.mismatch(&self.client));
        }
        Ok(TransactGetOutput {
            entities,
            items,
            visibility_at: super::visibility::epoch_now(&self.client),
            shown: self.shown,
        })
    }
}

impl<S: Scope> Operation for TransactGet<S> {
    type Output = TransactGetOutput;
    const READS_FIRST: bool = false;

    fn describe(&self) -> Op<'_> {
        Op {
            operation: "transact_get",
            entity: "transaction",
            table: self.client.table(),
            index: None,
        }
    }

    fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }

    fn execute(self) -> impl Future<Output = Result<TransactGetOutput>> + Send + 'static {
        self.send()
    }
}

operation!([S: Scope] TransactGet<S> => TransactGetOutput);
