//! Whole-item writes and deletes: `put`, `create`, `upsert`, `delete`,
//! `remove`.
//!
//! Each stamps the entity's managed fields (ids, timestamps, version),
//! conditions a versioned write on the version the caller read, moves unique
//! sentinels in the same transaction, and is sent so that no retry applies
//! it twice ([`single`](super::single)).

use super::managed::{self, Mode, Stamped};
use super::single::{self, Action, SingleWrite};
use super::unique::{self, Current};
use super::{
    and, is_table_key, not_exists, render_condition, Expressions, ReturnOld, ReturnStored,
    Returning,
};
use crate::error::Result;
use crate::limits::check_item;
use crate::Client;
use aws_sdk_dynamodb::types::ReturnValue;
use entity_core::expr::{Condition, Placeholders, Update};
use entity_core::{Entity, Item, PrimaryKey};
use std::marker::PhantomData;

/// A whole-item write: `put` replaces the item, `create` fails if it
/// exists. `.await` returns the entity as stored (generated ids,
/// timestamps and version filled in).
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
    pub(crate) fn identity_guarded(mut self) -> Self {
        self.identity_guard = true;
        self
    }
}

impl Client {
    fn whole<E: Entity>(&self, entity: &E, mode: Mode, upsert: bool) -> Put<E> {
        Put {
            client: self.clone(),
            stamped: managed::stamp(self, entity, mode),
            mode,
            upsert,
            condition: None,
            token: None,
            identity_guard: false,
            returning: PhantomData,
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
    pub fn put<E: Entity + entity_core::NotTenant>(&self, entity: &E) -> Put<E> {
        self.put_any(entity)
    }

    /// `put` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn put_any<E: Entity>(&self, entity: &E) -> Put<E> {
        self.whole(entity, Mode::Replace, false)
    }

    /// Writes the item only if no item has its key
    /// (`Error::ConditionFailed`, with the existing item, otherwise).
    /// Generated ids, `created_at`, `updated_at` and the version (1) are
    /// filled in, and unique sentinels written in the same transaction.
    pub fn create<E: Entity + entity_core::NotTenant>(&self, entity: &E) -> Put<E> {
        self.create_any(entity)
    }

    /// `create` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn create_any<E: Entity>(&self, entity: &E) -> Put<E> {
        self.whole(entity, Mode::Create, false)
    }

    /// Writes every field of the entity into the item with its key, creating
    /// it if missing and leaving attributes the entity does not own in place
    /// (an UpdateItem). Fields that are `None` are removed.
    pub fn upsert<E: Entity + entity_core::NotTenant>(&self, entity: &E) -> Upsert<E> {
        self.upsert_any(entity)
    }

    /// `upsert` for any entity, tenant or not: the tenant and cross-tenant
    /// clients' way in.
    pub(crate) fn upsert_any<E: Entity>(&self, entity: &E) -> Upsert<E> {
        self.whole(entity, Mode::Replace, true)
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
            mode: self.mode,
            upsert: self.upsert,
            condition: self.condition,
            token: self.token,
            identity_guard: self.identity_guard,
            returning: PhantomData,
        }
    }

    async fn send(self) -> Result<R::Output> {
        let stamped = self.stamped?;
        check_item(E::MODEL, &stamped.item)?;
        let expected = stamped.expected;
        let identity = single::IdentityGuard::of::<E>(self.identity_guard);
        let result = if !E::MODEL.managed.unique.is_empty() && self.mode == Mode::Replace {
            replace_guarded::<E, R>(
                &self.client,
                stamped,
                self.condition,
                self.upsert,
                self.token,
                identity,
            )
            .await
        } else {
            write_whole::<E, R>(
                &self.client,
                stamped,
                self.mode,
                self.condition,
                self.upsert,
                self.token,
                identity,
            )
            .await
        };
        let written = result.map_err(|e| match self.mode {
            Mode::Create => e,
            Mode::Replace => managed::version_conflict::<E>(e, expected),
        })?;
        match written {
            Written::Stored(entity) => R::stored(entity),
            Written::Returned(attributes) => R::output(E::MODEL.name, attributes),
        }
    }
}

impl<E: Entity + Send + 'static, R: Returning<E>> crate::ops::operation::Operation for Put<E, R> {
    type Output = R::Output;
    const WRITES: bool = true;

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

/// What a whole-item write hands back: the entity as stored, known to the
/// client, or the attributes DynamoDB returned.
enum Written<E> {
    Stored(E),
    Returned(Option<Item>),
}

/// A create, or a put/upsert of an entity without unique constraints.
async fn write_whole<E: Entity, R: Returning<E>>(
    client: &Client,
    stamped: Stamped<E>,
    mode: Mode,
    condition: Option<Condition<E>>,
    upsert: bool,
    token: Option<String>,
    identity: Option<single::IdentityGuard>,
) -> Result<Written<E>> {
    let condition = match mode {
        Mode::Create => and(condition, Some(not_exists::<E>())),
        Mode::Replace => managed::with_version(condition, stamped.expected),
    };
    if stamped.created_unset && stamped.expected != Some(0) {
        return replace_keeping_created::<E, R>(
            client, stamped, condition, upsert, token, identity,
        )
        .await;
    }
    let mut write = whole_write(&stamped.item, upsert, condition.as_ref())?;
    write.idempotent = condition.is_none();
    write.identity = identity;
    write.token = token;
    write.return_value = R::return_value();
    if mode == Mode::Create {
        write.companions =
            unique::moves::<E>(client, &[], &created_values(&stamped)?, &stamped.item)?;
    }
    write
        .companions
        .extend(super::history::companions::<E>(client, &stamped.item)?);
    let attributes = single::send(client, write).await?;
    written::<E, R>(attributes, stamped)
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

/// A put/upsert of an entity whose `created_at` is unset: the stored item's
/// is kept, and every key composed of it is composed from it. The write is
/// conditioned on the stored `created_at` (which never changes once
/// written), or on there being no item.
async fn replace_keeping_created<E: Entity, R: Returning<E>>(
    client: &Client,
    stamped: Stamped<E>,
    condition: Option<Condition<E>>,
    upsert: bool,
    token: Option<String>,
    identity: Option<single::IdentityGuard>,
) -> Result<Written<E>> {
    let created_at = E::MODEL.managed.created_at.map(|c| c.attribute);
    let write = Replace {
        client,
        condition,
        upsert,
        token,
        identity,
    };
    write
        .send_from_stored::<R>(stamped, |current, _| {
            let stored_created = current
                .item
                .as_ref()
                .map(|item| created_at.and_then(|a| item.get(a).map(|v| (a, v.clone()))));
            // A repeat meets the stored `created_at` it wrote back: the same.
            Ok(match stored_created {
                Some(Some((attribute, value))) => Plan {
                    guard: entity_core::__private::condition_equals::<E>(attribute, value),
                    stable: true,
                    companions: Vec::new(),
                },
                Some(None) => Plan::unstable(super::exists::<E>()),
                None => Plan::unstable(not_exists::<E>()),
            })
        })
        .await
}

/// The unique values of the entity a write stores.
pub(crate) fn created_values<E: Entity>(stamped: &Stamped<E>) -> Result<Vec<Option<String>>> {
    if E::MODEL.managed.unique.is_empty() {
        return Ok(Vec::new());
    }
    Ok(match &stamped.entity {
        Some(entity) => entity.unique_values(),
        None => E::from_item(stamped.item.clone())?.unique_values(),
    })
}

/// A put/upsert of an entity with unique constraints: write the entity and
/// move the sentinels whose values change, in one transaction conditioned
/// on the unique attributes being as read.
async fn replace_guarded<E: Entity, R: Returning<E>>(
    client: &Client,
    stamped: Stamped<E>,
    condition: Option<Condition<E>>,
    upsert: bool,
    token: Option<String>,
    identity: Option<single::IdentityGuard>,
) -> Result<Written<E>> {
    let new_values = created_values(&stamped)?;
    let write = Replace {
        client,
        condition: managed::with_version(condition, stamped.expected),
        upsert,
        token,
        identity,
    };
    write
        .send_from_stored::<R>(stamped, |current, item| {
            Ok(Plan {
                guard: current.guard(),
                stable: false,
                companions: unique::moves::<E>(client, &current.values, &new_values, item)?,
            })
        })
        .await
}

/// A whole-entity write that starts from the stored item.
struct Replace<'a, E> {
    client: &'a Client,
    condition: Option<Condition<E>>,
    upsert: bool,
    token: Option<String>,
    identity: Option<single::IdentityGuard>,
}

/// What a write from the stored item adds: the condition that the item is
/// still as read, whether a repeat of the write meets that condition again
/// (then it is idempotent), and the other items it writes.
struct Plan<E> {
    guard: Condition<E>,
    stable: bool,
    companions: Vec<single::Companion>,
}

impl<E> Plan<E> {
    fn unstable(guard: Condition<E>) -> Self {
        Self {
            guard,
            stable: false,
            companions: Vec::new(),
        }
    }
}

impl<E: Entity> Replace<'_, E> {
    /// Reads the stored item (strongly consistent), keeps its `created_at`,
    /// and writes the entity with `plan`'s guard and companions and the
    /// history snapshot; another write that moved the item in between is
    /// read again.
    async fn send_from_stored<R: Returning<E>>(
        self,
        stamped: Stamped<E>,
        plan: impl Fn(&Current<E>, &Item) -> Result<Plan<E>>,
    ) -> Result<Written<E>> {
        let key = stamped_key(&stamped)?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let current = Current::<E>::read_guarded(self.client, &key, self.identity).await?;
            let kept = keep_created(&stamped, current.item.as_ref())?;
            let plan = plan(&current, &kept.item)?;
            let guarded = and(self.condition.clone(), Some(plan.guard));
            let mut write = whole_write(&kept.item, self.upsert, guarded.as_ref())?;
            write.idempotent = self.condition.is_none() && plan.stable;
            write.identity = self.identity;
            write.token = self.token.clone();
            write.return_value = R::return_value();
            write.companions = plan.companions;
            write
                .companions
                .extend(super::history::companions::<E>(self.client, &kept.item)?);
            match single::send(self.client, write).await {
                Err(e) if current.raced(&e) && attempt < unique::GUARDED_ATTEMPTS => continue,
                Err(e) => return Err(e),
                Ok(attributes) => return written::<E, R>(attributes, kept),
            }
        }
    }
}

/// The table key of a stamped entity.
fn stamped_key<E: Entity>(stamped: &Stamped<E>) -> Result<PrimaryKey<E>> {
    Ok(match &stamped.entity {
        Some(entity) => entity.primary_key(),
        None => E::from_item(stamped.item.clone())?.primary_key(),
    })
}

/// The stamped entity with the stored item's `created_at`, when there is
/// a stored item (a put keeps the creation time).
fn keep_created<E: Entity>(stamped: &Stamped<E>, stored: Option<&Item>) -> Result<Stamped<E>> {
    let mut item = stamped.item.clone();
    if let (Some(created_at), Some(stored)) = (E::MODEL.managed.created_at, stored) {
        if let Some(value) = stored.get(created_at.attribute) {
            item.insert(created_at.attribute.to_owned(), value.clone());
        }
    }
    let entity = E::from_item(item)?;
    Ok(Stamped {
        item: entity.to_item()?,
        entity: Some(entity),
        expected: stamped.expected,
        created_unset: false,
    })
}

/// The write of a whole item: a PutItem, or for an upsert an UpdateItem
/// setting every attribute but the table key (`created_at` only if the
/// item has none) and removing absent fields.
pub(crate) fn whole_write<E: Entity>(
    item: &Item,
    upsert: bool,
    condition: Option<&Condition<E>>,
) -> Result<SingleWrite> {
    whole_write_removing(item, upsert, condition, &[])
}

/// [`whole_write`], an upsert also removing `removes` (the marks of a soft
/// delete, on restore).
pub(crate) fn whole_write_removing<E: Entity>(
    item: &Item,
    upsert: bool,
    condition: Option<&Condition<E>>,
    removes: &[&'static str],
) -> Result<SingleWrite> {
    let mut placeholders = Placeholders::default();
    let action = if upsert {
        let key = table_key_of::<E>(item);
        let expression = upsert_expression::<E>(item.clone(), removes, &mut placeholders)?;
        Action::Update { key, expression }
    } else {
        Action::Put { item: item.clone() }
    };
    let context = if upsert {
        "upsert condition"
    } else {
        "put condition"
    };
    let condition = render_condition(condition, &mut placeholders, context)?;
    Ok(SingleWrite::new(
        E::MODEL.name,
        action,
        Expressions::new(condition, placeholders),
    ))
}

/// The table key attributes of an item.
fn table_key_of<E: Entity>(item: &Item) -> Item {
    item.iter()
        .filter(|(name, _)| is_table_key::<E>(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// The upsert's UpdateExpression: `SET` every attribute of the item but the
/// table key (`created_at` with `if_not_exists`), `REMOVE` absent fields.
fn upsert_expression<E: Entity>(
    item: Item,
    removes: &[&'static str],
    placeholders: &mut Placeholders,
) -> Result<String> {
    let created_at = E::MODEL.managed.created_at.map(|c| c.attribute);
    let mut removed: Vec<&str> = E::MODEL
        .fields
        .iter()
        .map(|field| field.attribute)
        .filter(|attribute| !item.contains_key(*attribute))
        .collect();
    for attribute in removes {
        if !removed.contains(attribute) && !item.contains_key(*attribute) {
            removed.push(attribute);
        }
    }
    // In a fixed order: a request resent with its idempotency token must be
    // the same request, placeholders included.
    let mut attributes: Vec<_> = item.into_iter().collect();
    attributes.sort_by(|a, b| a.0.cmp(&b.0));
    let mut update = Update::<E>::new();
    for (name, value) in attributes {
        if is_table_key::<E>(&name) {
            continue;
        }
        update = if Some(name.as_str()) == created_at {
            entity_core::__private::update_set_raw_if_not_exists(update, &name, value)
        } else {
            entity_core::__private::update_set_raw(update, &name, value)
        };
    }
    let mut expression =
        update
            .render(placeholders)
            .map_err(|source| crate::ValidationError::Value {
                context: "upsert",
                source,
            })?;
    if !removed.is_empty() {
        let names: Vec<String> = removed.iter().map(|a| placeholders.name(a)).collect();
        expression.push_str(&format!(" REMOVE {}", names.join(", ")));
    }
    Ok(expression)
}
