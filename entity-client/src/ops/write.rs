//! Whole-item writes and deletes: `put`, `create`, `upsert`, `delete`,
//! `remove`.
//!
//! Each stamps the entity's managed fields (ids, timestamps, version),
//! conditions a versioned write on the version the caller read, moves unique
//! sentinels in the same transaction, and is sent so that no retry applies
//! it twice ([`single`](super::single)).

use super::lifecycle;
use super::managed::{self, created_values, keep_created, stamped_key, Mode, Stamped};
use super::rmw::{read_modify_write, Current, Start, Step};
use super::single::{self, SingleWrite};
use super::whole_write::WholeWrite;
use super::{and, not_exists, ReturnOld, ReturnStored, Returning};
use crate::error::{Error, FailedCondition, Result};
use crate::limits::check_item;
use crate::scoping::{Reaches, Scope};
use crate::Client;
use aws_sdk_dynamodb::types::ReturnValue;
use entity_core::expr::Condition;
use entity_core::{Entity, Item};
use std::borrow::Cow;
use std::marker::PhantomData;

/// A whole-item write: `put` replaces the item, `create` fails if it
/// exists. `.await` returns the entity as stored (generated ids,
/// timestamps and version filled in). An entity with nothing to fill in
/// (no managed fields or unique values, TTL, soft delete, encrypted or
/// signed fields) whose type is `Clone` comes back as a clone of the value
/// written, rather than decoded from its item: the same value, unless a
/// field's conversion loses something.
///
/// ```no_run
/// # use entity_client::{Client, Entity};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32 }
/// # async fn demo(client: Client, doc: Doc) -> entity_client::Result<()> {
/// let f = Doc::fields();
/// let stored: Doc = client.put(&doc).condition(f.views.lt(10u32)).await?;
/// let previous: Option<Doc> = client.put(&doc).return_old().await?;
/// client.create(&doc).await?; // Error::ConditionFailed if it exists
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct Put<E, R = ReturnStored> {
    client: Client,
    stamped: Result<Stamped<E>>,
    /// The item passed DynamoDB's limits as it was written.
    checked: bool,
    mode: Mode,
    /// `upsert`: an UpdateItem that leaves attributes the entity does not
    /// own in place.
    upsert: bool,
    condition: Option<Condition<E>>,
    token: Option<String>,
    /// A tenant client's write: only over an absent item or one of `E`
    /// ([`IdentityGuard`](single::IdentityGuard)).
    identity_guard: bool,
    returning: PhantomData<R>,
}

/// An upsert: every field written with UpdateItem. `.await` returns the
/// entity as stored.
pub type Upsert<E, R = ReturnStored> = Put<E, R>;

impl<E, R> Put<E, R> {
    /// Fails the write with `error` when sent, sending nothing.
    pub(crate) fn refused(mut self, error: crate::Error) -> Self {
        self.stamped = Err(error);
        self
    }

    /// Writes only over an absent item or one of this entity (a tenant
    /// client's writes).
    pub(crate) fn guarded(mut self, on: bool) -> Self {
        self.identity_guard = on;
        self
    }
}

impl Client {
    fn whole<E: Entity>(&self, entity: &E, mode: Mode, upsert: bool) -> Put<E> {
        // Decided per entity at compile time: an item checked against the
        // limits as it is written is not read again when sent.
        let (mut stamped, checked) = match const { managed::checks_as_written::<E>() } {
            true => match managed::write_checked(entity, |_| ()) {
                Ok((item, checked)) => (Ok(Stamped::unstamped(item)), checked.is_some()),
                Err(e) => (Err(e), false),
            },
            false => (managed::stamp(self, entity, mode), false),
        };
        // An entity stored just as it converts is handed back as the
        // caller's value, copied now when its type is `Clone`, rather than
        // decoded from the item written.
        if let (true, Some(copy), Ok(stamped)) = (
            const { managed::stored_as_converted(E::MODEL) },
            E::__DERIVED.copy,
            &mut stamped,
        ) {
            stamped.entity = Some(copy(entity));
        }
        Put {
            client: self.clone(),
            stamped,
            checked,
            mode,
            // An encrypted item is signed whole: its upsert is a put.
            upsert: upsert && !const { E::MODEL.encrypts() },
            condition: None,
            token: None,
            identity_guard: false,
            returning: PhantomData,
        }
    }

    /// `put` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn put_any<E: Entity>(&self, entity: &E) -> Put<E> {
        self.whole(entity, Mode::Replace, false)
    }

    /// `create` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn create_any<E: Entity>(&self, entity: &E) -> Put<E> {
        self.whole(entity, Mode::Create, false)
    }

    /// `upsert` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn upsert_any<E: Entity>(&self, entity: &E) -> Upsert<E> {
        self.whole(entity, Mode::Replace, true)
    }
}

impl<S: Scope> Client<S> {
    /// A whole write in this scope: refused for an entity the scope does
    /// not take (another tenant's), identity-guarded where the scope is.
    fn scoped_whole<E: Entity>(&self, entity: &E, put: Put<E>) -> Put<E>
    where
        S: Reaches<E>,
    {
        let put = put.guarded(S::GUARDED);
        match self.scope.refuse(entity) {
            Some(error) => put.refused(error),
            None => put,
        }
    }

    /// Writes the whole item, replacing any item with the same key.
    ///
    /// A versioned entity (`#[entity(version)]`) is written only if the
    /// stored version is the entity's (`Error::VersionConflict`
    /// otherwise), and stored with the next version. An entity whose
    /// `created_at` is unset keeps the stored item's creation time: the
    /// item is read first (strongly consistent), and keys composed of
    /// `created_at` are composed from the stored one.
    pub fn put<E: Entity>(&self, entity: &E) -> Put<E>
    where
        S: Reaches<E>,
    {
        self.scoped_whole(entity, self.reach::<E>().put_any(entity))
    }

    /// Writes the item only if no item has its key
    /// (`Error::ConditionFailed`, with the existing item, otherwise).
    /// Generated ids, `created_at`, `updated_at` and the version (1) are
    /// filled in, and unique sentinels written in the same transaction.
    pub fn create<E: Entity>(&self, entity: &E) -> Put<E>
    where
        S: Reaches<E>,
    {
        self.scoped_whole(entity, self.reach::<E>().create_any(entity))
    }

    /// Writes every field of the entity into the item with its key, creating
    /// it if missing and leaving attributes the entity does not own in place
    /// (an UpdateItem). Fields that are `None` are removed.
    pub fn upsert<E: Entity>(&self, entity: &E) -> Upsert<E>
    where
        S: Reaches<E>,
    {
        self.scoped_whole(entity, self.reach::<E>().upsert_any(entity))
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> Put<E, R> {
    /// Writes only if `condition` holds (`Error::ConditionFailed`
    /// otherwise, with the stored item).
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        self.condition = and(self.condition.take(), Some(condition));
        self
    }

    /// Sends the write as a transaction with this client request token:
    /// the same token within ten minutes does not write twice, so a caller
    /// that retries after an error cannot apply it twice either.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Returns the item that was replaced, if any, instead of the stored
    /// entity (a single-item call; not for entities with unique
    /// constraints).
    pub fn return_old(self) -> Put<E, ReturnOld> {
        Put {
            client: self.client,
            stamped: self.stamped,
            checked: self.checked,
            mode: self.mode,
            upsert: self.upsert,
            condition: self.condition,
            token: self.token,
            identity_guard: self.identity_guard,
            returning: PhantomData,
        }
    }

    async fn send(self) -> Result<R::Output> {
        let mut stamped = self.stamped?;
        if !self.checked {
            check_item(E::MODEL, &stamped.item)?;
        }
        let (mode, expected) = (self.mode, stamped.expected);
        let refused = |e| match mode {
            Mode::Create => exists(e),
            Mode::Replace => {
                lifecycle::deleted_as_missing::<E>(managed::version_conflict::<E>(e, expected))
            }
        };
        let whole = Whole {
            client: &self.client,
            mode,
            upsert: self.upsert,
            condition: self.condition,
            token: self.token,
            identity: single::IdentityGuard::of::<E>(self.identity_guard),
        };
        // A write planned once is sent from here, not through another
        // future: each layer between `.await` and the SDK's request is
        // polled, and its code fetched, on every request.
        let written = match whole.once::<R>(&mut stamped).map_err(refused)? {
            Some(write) => {
                let attributes = single::send(&self.client, write).await.map_err(refused)?;
                written::<E, R>(attributes, stamped)?
            }
            None => whole.send::<R>(stamped).await.map_err(refused)?,
        };
        match written {
            Written::Stored(entity) => R::stored(entity),
            Written::Returned(attributes) => R::output(E::MODEL.name, attributes),
        }
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> crate::ops::operation::Operation for Put<E, R> {
    type Output = R::Output;
    const READS_FIRST: bool = true;

    fn describe(&self) -> crate::trace::Op<'_> {
        crate::trace::Op {
            operation: match (self.mode, self.upsert) {
                (Mode::Create, _) => "create",
                (_, true) => "upsert",
                _ => "put",
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

crate::ops::operation::operation!([E: Entity + Send + 'static, R: Returning<E>] Put<E, R> => R::Output);

/// A create's failed condition that met a stored item: the item exists
/// (a create's own condition; the caller's can fail only on no item).
fn exists(error: Error) -> Error {
    match error {
        Error::ConditionFailed {
            entity,
            old: Some(old),
            source,
            ..
        } => Error::ConditionFailed {
            entity,
            why: FailedCondition::Exists,
            old: Some(old),
            source,
        },
        other => other,
    }
}

/// What a whole-item write hands back: the entity as stored, known to the
/// client, or the attributes DynamoDB returned.
enum Written<E> {
    Stored(E),
    Returned(Option<Item>),
}

/// A whole-item write, planned from the stored item in the
/// read-modify-write loop, or blind.
struct Whole<'a, E> {
    client: &'a Client,
    mode: Mode,
    upsert: bool,
    condition: Option<Condition<E>>,
    token: Option<String>,
    identity: Option<single::IdentityGuard>,
}

impl<E: Entity> Whole<'_, E> {
    /// The condition the write is sent under: the caller's, and a
    /// create's (no item) or a versioned replace's (the version read).
    fn condition(&self, stamped: &Stamped<E>) -> Option<Condition<E>> {
        match self.mode {
            Mode::Create => and(self.condition.clone(), Some(not_exists::<E>())),
            // A deleted item meets the caller's condition as a missing one.
            Mode::Replace => managed::with_version(
                lifecycle::as_if_missing(self.condition.clone()),
                stamped.expected,
            ),
        }
    }

    /// Whether the write is blind: nothing stored matters to it (a create,
    /// a put of an entity without unique values that sets its own
    /// `created_at`).
    fn blind(&self, stamped: &Stamped<E>) -> bool {
        // An upsert keeps a stored `created_at` (`if_not_exists`): its keys
        // and the entity it returns are composed from the stored one.
        let keeps_created = (stamped.created_unset
            || (self.upsert && E::MODEL.managed.created_at.is_some()))
            && stamped.expected != Some(0);
        self.mode == Mode::Create || !(keeps_created || moves_unique::<E>())
    }

    /// The request of a write planned and sent once, blind and claiming no
    /// unique values: no read can race it and no claim can fail, so the
    /// read-modify-write loop would have nothing to repeat. `None` for a
    /// write planned in the loop ([`send`](Self::send)).
    fn once<R: Returning<E>>(&self, stamped: &mut Stamped<E>) -> Result<Option<SingleWrite>> {
        if moves_unique::<E>() || !self.blind(stamped) {
            return Ok(None);
        }
        let condition = self.condition(stamped);
        // The item of an entity stored as it converts, whose value the
        // write hands back, goes to the request without a copy: planned
        // once, the item is not needed again.
        let hands_item = const { managed::stored_as_converted(E::MODEL) };
        let item = match (hands_item, &stamped.entity) {
            (true, Some(_)) => Cow::Owned(std::mem::take(&mut stamped.item)),
            _ => Cow::Borrowed(&stamped.item),
        };
        let mut write = self.request::<R>(item, condition.as_ref(), &[], &[])?;
        write.idempotent = condition.is_none();
        Ok(Some(write))
    }

    /// Sends the write of `stamped` in the read-modify-write loop: blind
    /// for a create claiming unique values (a claim held by a stale
    /// sentinel is reclaimed and the write planned again), else from the
    /// stored item.
    async fn send<R: Returning<E>>(self, stamped: Stamped<E>) -> Result<Written<E>> {
        let condition = self.condition(&stamped);
        let moves_unique = moves_unique::<E>();
        if self.blind(&stamped) {
            // Only a create claiming unique values comes here blind (the
            // others are sent [`once`](Self::once)): conditioned on no
            // item, it is not idempotent.
            debug_assert!(self.mode == Mode::Create && moves_unique);
            let values = created_values(&stamped)?;
            let plan = |_: &Current<E>| {
                let item = Cow::Borrowed(&stamped.item);
                let write = self.request::<R>(item, condition.as_ref(), &[], &values)?;
                Ok(Step::Send(write, ()))
            };
            let (_, attributes) = read_modify_write(self.client, Start::<E>::Blind, plan).await?;
            return written::<E, R>(attributes, stamped);
        }
        let key = stamped_key(&stamped)?;
        let start = Start::Read(&key, self.identity);
        let (item, expected) = (&stamped.item, stamped.expected);
        let (kept, attributes) = read_modify_write(self.client, start, |current| {
            let kept = keep_created::<E>(item, expected, current.item.as_ref())?;
            let values = created_values(&kept)?;
            let (guard, stable) = match moves_unique {
                true => (current.unique_guard(), false),
                false => created_guard(current),
            };
            let guarded = and(condition.clone(), Some(guard));
            let mut write = self.request::<R>(
                Cow::Borrowed(&kept.item),
                guarded.as_ref(),
                &current.values,
                &values,
            )?;
            write.idempotent = condition.is_none() && stable;
            Ok(Step::Send(write, kept))
        })
        .await?;
        written::<E, R>(attributes, kept)
    }

    /// The request writing `item` under `condition`, moving the unique
    /// sentinels from the values `held` to the ones it `holds`.
    fn request<R: Returning<E>>(
        &self,
        item: Cow<'_, Item>,
        condition: Option<&Condition<E>>,
        held: &[Option<String>],
        holds: &[Option<String>],
    ) -> Result<SingleWrite> {
        let mut write = WholeWrite {
            item,
            upsert: self.upsert,
            removes: &[],
            condition,
            identity: self.identity,
            held,
            holds,
        }
        .plan(self.client)?;
        write.token = self.token.clone();
        write.return_value = R::return_value();
        Ok(write)
    }
}

/// Whether writes of `E` move unique sentinels.
const fn moves_unique<E: Entity>() -> bool {
    !E::MODEL.managed.unique.is_empty()
}

/// What the write hands back: the returned attributes the caller asked
/// for, or the stored entity.
fn written<E: Entity, R: Returning<E>>(
    attributes: Option<Item>,
    stamped: Stamped<E>,
) -> Result<Written<E>> {
    if R::return_value() != ReturnValue::None {
        return Ok(Written::Returned(attributes));
    }
    Ok(Written::Stored(stamped.into_entity()?))
}

/// The condition of a write that keeps the stored `created_at`: the stored
/// one still there (it never changes once written), or still no item; and
/// whether a repeat of the write meets it again (then it is idempotent).
fn created_guard<E: Entity>(current: &Current<E>) -> (Condition<E>, bool) {
    let created_at = E::MODEL.managed.created_at.map(|c| c.attribute);
    let stored_created = current
        .item
        .as_ref()
        .map(|item| created_at.and_then(|a| item.get(a).map(|v| (a, v.clone()))));
    match stored_created {
        // A repeat meets the stored `created_at` it wrote back: the same.
        Some(Some((attribute, value))) => (
            entity_core::__private::condition_equals::<E>(attribute, value),
            true,
        ),
        Some(None) => (super::exists::<E>(), false),
        None => (not_exists::<E>(), false),
    }
}
