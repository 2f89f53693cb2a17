//! Transactions of a tenant client (every item is of its tenant, and every
//! write is guarded like the tenant client's single writes), and the
//! cross-tenant transactions and batch writes of `client.cross_tenant()`.

use super::{CrossTenant, TenantClient};
use crate::ops::batch::write::{BatchWrite, BatchWriteOutput};
use crate::ops::managed::Mode;
use crate::ops::operation::{operation, Operation};
use crate::ops::single::IdentityGuard;
use crate::ops::transact::{TransactGet, TransactGetOutput, TransactWrite};
use crate::trace::Op;
use crate::{Client, Result};
use entity_core::expr::{Condition, Update};
use entity_core::{
    Entity, IntoTenantKey, PrimaryKey, TenantEntity, WithoutSoftDelete, WithoutUnique,
    WithoutVersion,
};
use std::future::Future;

/// A write transaction of one tenant ([`TenantClient::transact_write`]):
/// [`TransactWrite`] for tenant entities, with tenant-free keys completed
/// with the tenant.
///
/// An entity of another tenant is [`Error::TenantMismatch`](crate::Error)
/// and nothing is sent; each item's key is checked before sending, like
/// every tenant request; and each write is conditioned on its item being
/// absent or of its entity, so a transaction over another entity's item
/// (another tenant's, under an overlapping key format) is canceled and
/// returned as `TenantMismatch` without that item.
///
/// ```
/// use entity_client::{Entity, Error};
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(schema = "shop", tenant = tenant_id)]
/// #[pk(tenant_id)]
/// #[sk(account)]
/// struct Balance { tenant_id: String, account: String, cents: i64 }
///
/// # #[cfg(not(feature = "embedded"))] fn main() {}
/// # #[cfg(feature = "embedded")]
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = entity_client::EmbeddedDynamo::start().await?;
/// # let client = server.client("app");
/// # client.create_table(&[Balance::MODEL]).await?;
/// let acme = client.tenant("acme");
/// let f = Balance::fields();
/// acme.transact_write()
///     .put(&Balance { tenant_id: "acme".into(), account: "a".into(), cents: 100 })
///     .put(&Balance { tenant_id: "acme".into(), account: "b".into(), cents: 0 })
///     .await?;
/// acme.transact_write()
///     .update(Balance::tenant_key("a"), Update::new().subtract(f.cents, 40i64), Some(f.cents.gte(40i64)))
///     .update(Balance::tenant_key("b"), Update::new().add(f.cents, 40i64), None)
///     .await?;
/// let out = acme.transact_get().get(Balance::tenant_key("a")).get(Balance::tenant_key("b")).await?;
/// assert_eq!(out.entity::<Balance>(1)?.map(|b| b.cents), Some(40));
///
/// // Another tenant's entity is refused before anything is sent.
/// let theirs = Balance { tenant_id: "globex".into(), account: "a".into(), cents: 1 };
/// let refused = acme.transact_write().put(&theirs).await;
/// assert!(matches!(refused, Err(Error::TenantMismatch { .. })));
/// # use entity_client::expr::Update;
/// # Ok(()) }
/// ```
#[must_use = "a request does nothing until it is awaited"]
pub struct TenantTransactWrite {
    tenant: TenantClient,
    inner: TransactWrite,
}

/// A read transaction of one tenant ([`TenantClient::transact_get`]). An
/// item read at a key of this tenant that is another entity's (another
/// tenant's, under an overlapping key format) fails the whole read with
/// [`Error::TenantMismatch`](crate::Error), without the item.
#[must_use = "a request does nothing until it is awaited"]
pub struct TenantTransactGet {
    tenant: TenantClient,
    inner: TransactGet,
    /// Each get's entity, to check what comes back.
    guards: Vec<IdentityGuard>,
}

impl TenantClient {
    /// Starts a write transaction of this tenant's items (see
    /// [`TenantTransactWrite`] and [`Client::transact_write`](crate::Client::transact_write)).
    pub fn transact_write(&self) -> TenantTransactWrite {
        TenantTransactWrite {
            tenant: self.clone(),
            inner: self.client.transact_write(),
        }
    }

    /// Starts a read transaction of this tenant's items (see
    /// [`Client::transact_get`](crate::Client::transact_get)).
    pub fn transact_get(&self) -> TenantTransactGet {
        TenantTransactGet {
            tenant: self.clone(),
            inner: self.client.transact_get(),
            guards: Vec::new(),
        }
    }
}

impl TenantTransactWrite {
    /// `entity`'s write, or the refusal of another tenant's entity.
    fn whole<E: TenantEntity + 'static>(
        self,
        entity: &E,
        mode: Mode,
        condition: Option<Condition<E>>,
    ) -> Self {
        self.tenant.scope.register::<E>();
        let inner = match self.tenant.mismatch(entity) {
            Some(error) => self.inner.refused(error),
            None => self
                .inner
                .whole(entity, mode, condition, IdentityGuard::of::<E>(true)),
        };
        Self { inner, ..self }
    }

    /// Writes a whole item of this tenant (see [`TransactWrite::put`]).
    pub fn put<E: TenantEntity + WithoutUnique + 'static>(self, entity: &E) -> Self {
        self.whole(entity, Mode::Replace, None)
    }

    /// Writes a whole item of this tenant if `condition` holds.
    pub fn put_if<E: TenantEntity + WithoutUnique + 'static>(
        self,
        entity: &E,
        condition: Condition<E>,
    ) -> Self {
        self.whole(entity, Mode::Replace, Some(condition))
    }

    /// Writes an item of this tenant that must not exist yet.
    pub fn create<E: TenantEntity + 'static>(self, entity: &E) -> Self {
        self.whole(entity, Mode::Create, None)
    }

    /// Changes an item of this tenant, if `condition` (when given) holds.
    pub fn update<E: TenantEntity + 'static>(
        self,
        key: impl IntoTenantKey<E>,
        update: Update<E>,
        condition: Option<Condition<E>>,
    ) -> Self {
        self.tenant.scope.register::<E>();
        let key = key.into_tenant_key(self.tenant.tenant());
        let guard = IdentityGuard::of::<E>(true);
        let inner = self.inner.update_any(key, update, condition, guard);
        Self { inner, ..self }
    }

    /// Deletes an item of this tenant, if `condition` (when given) holds.
    pub fn delete<E: TenantEntity + WithoutUnique + WithoutSoftDelete + 'static>(
        self,
        key: impl IntoTenantKey<E>,
        condition: Option<Condition<E>>,
    ) -> Self {
        self.tenant.scope.register::<E>();
        let key = key.into_tenant_key(self.tenant.tenant());
        let inner = self
            .inner
            .delete_any(key, condition, IdentityGuard::of::<E>(true));
        Self { inner, ..self }
    }

    /// Deletes an item of this tenant for good, a soft-delete entity's
    /// included, if `condition` (when given) holds.
    pub fn purge<E: TenantEntity + WithoutUnique + 'static>(
        self,
        key: impl IntoTenantKey<E>,
        condition: Option<Condition<E>>,
    ) -> Self {
        self.tenant.scope.register::<E>();
        let key = key.into_tenant_key(self.tenant.tenant());
        let inner = self
            .inner
            .purge_any(key, condition, IdentityGuard::of::<E>(true));
        Self { inner, ..self }
    }

    /// Requires `condition` to hold on an item of this tenant the
    /// transaction does not write.
    pub fn condition_check<E: TenantEntity + 'static>(
        self,
        key: impl IntoTenantKey<E>,
        condition: Condition<E>,
    ) -> Self {
        self.tenant.scope.register::<E>();
        let key = key.into_tenant_key(self.tenant.tenant());
        let guard = IdentityGuard::of::<E>(true);
        let inner = self.inner.condition_check_any(key, condition, guard);
        Self { inner, ..self }
    }

    /// Sets the transaction's client request token (see
    /// [`TransactWrite::idempotency_token`]).
    pub fn idempotency_token(self, token: impl Into<String>) -> Self {
        Self {
            inner: self.inner.idempotency_token(token),
            ..self
        }
    }

    /// Items in the transaction so far (with the history snapshots it
    /// writes).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when the transaction has no items.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

/// Runs as the transaction it wraps, whose client is the tenant's.
impl Operation for TenantTransactWrite {
    type Output = ();
    const WRITES: bool = true;

    fn describe(&self) -> Op<'_> {
        self.inner.describe()
    }

    fn client_mut(&mut self) -> &mut Client {
        self.inner.client_mut()
    }

    fn execute(self) -> impl Future<Output = Result<()>> + Send + 'static {
        self.inner.execute()
    }
}

operation!([] TenantTransactWrite => ());

impl TenantTransactGet {
    /// Reads the item of this tenant with this key.
    pub fn get<E: TenantEntity + 'static>(mut self, key: impl IntoTenantKey<E>) -> Self {
        self.tenant.scope.register::<E>();
        let key = key.into_tenant_key(self.tenant.tenant());
        self.guards.extend(IdentityGuard::of::<E>(true));
        Self {
            inner: self.inner.get_any(key),
            ..self
        }
    }
}

impl Operation for TenantTransactGet {
    type Output = TransactGetOutput;
    const WRITES: bool = false;

    fn describe(&self) -> Op<'_> {
        self.inner.describe()
    }

    fn client_mut(&mut self) -> &mut Client {
        self.inner.client_mut()
    }

    fn execute(self) -> impl Future<Output = Result<TransactGetOutput>> + Send + 'static {
        let TenantTransactGet {
            tenant,
            inner,
            guards,
        } = self;
        async move {
            let output = inner.execute().await?;
            let foreign = output.items.iter().zip(&guards).find_map(|(item, guard)| {
                item.as_ref().filter(|i| guard.is_foreign(i)).map(|_| guard)
            });
            match foreign {
                Some(guard) => Err(guard.mismatch(&tenant.client)),
                None => Ok(output),
            }
        }
    }
}

operation!([] TenantTransactGet => TransactGetOutput);

/// A write transaction across tenants ([`CrossTenant::transact_write`]):
/// [`TransactWrite`] for any entity, tenant entities included, with no
/// tenant check: keys are taken as given.
#[must_use = "a request does nothing until it is awaited"]
pub struct CrossTenantTransactWrite {
    inner: TransactWrite,
}

/// A batch write across tenants ([`CrossTenant::batch_write`]):
/// [`BatchWrite`] for any entity, with no tenant check.
#[must_use = "a request does nothing until it is awaited"]
pub struct CrossTenantBatchWrite {
    inner: BatchWrite,
}

/// A read transaction across tenants ([`CrossTenant::transact_get`]).
#[must_use = "a request does nothing until it is awaited"]
pub struct CrossTenantTransactGet {
    inner: TransactGet,
}

impl CrossTenant<'_> {
    /// [`Client::transact_write`](crate::Client::transact_write), for any
    /// entity: an administrative write that spans tenants, such as moving
    /// an item from one tenant to another.
    ///
    /// ```
    /// use entity_client::Entity;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "shop", tenant = tenant_id)]
    /// #[pk(tenant_id)]
    /// #[sk(sku)]
    /// struct Listing { tenant_id: String, sku: String }
    ///
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = entity_client::EmbeddedDynamo::start().await?;
    /// # let client = server.client("app");
    /// # client.create_table(&[Listing::MODEL]).await?;
    /// let admin = client.cross_tenant();
    /// admin.batch_write()
    ///     .put(&Listing { tenant_id: "acme".into(), sku: "s1".into() })
    ///     .put(&Listing { tenant_id: "globex".into(), sku: "s2".into() })
    ///     .await?;
    /// // Hand s1 from acme to globex: both writes, or neither.
    /// admin.transact_write()
    ///     .delete(Listing::key("acme", "s1"), None)
    ///     .create(&Listing { tenant_id: "globex".into(), sku: "s1".into() })
    ///     .await?;
    /// assert_eq!(client.tenant("acme").get(Listing::tenant_key("s1")).await?, None);
    /// assert!(client.tenant("globex").get(Listing::tenant_key("s1")).await?.is_some());
    /// # Ok(()) }
    /// ```
    pub fn transact_write(&self) -> CrossTenantTransactWrite {
        CrossTenantTransactWrite {
            inner: self.client.transact_write(),
        }
    }

    /// [`Client::transact_get`](crate::Client::transact_get), for any entity.
    pub fn transact_get(&self) -> CrossTenantTransactGet {
        CrossTenantTransactGet {
            inner: self.client.transact_get(),
        }
    }

    /// [`Client::batch_write`](crate::Client::batch_write), for any entity
    /// (without unique constraints or a lock version, as there).
    pub fn batch_write(&self) -> CrossTenantBatchWrite {
        CrossTenantBatchWrite {
            inner: self.client.batch_write(),
        }
    }
}

impl CrossTenantTransactWrite {
    /// [`TransactWrite::put`], for any entity.
    pub fn put<E: WithoutUnique>(self, entity: &E) -> Self {
        Self {
            inner: self.inner.whole(entity, Mode::Replace, None, None),
        }
    }

    /// [`TransactWrite::put_if`], for any entity.
    pub fn put_if<E: WithoutUnique>(self, entity: &E, condition: Condition<E>) -> Self {
        Self {
            inner: self
                .inner
                .whole(entity, Mode::Replace, Some(condition), None),
        }
    }

    /// [`TransactWrite::create`], for any entity.
    pub fn create<E: Entity>(self, entity: &E) -> Self {
        Self {
            inner: self.inner.whole(entity, Mode::Create, None, None),
        }
    }

    /// [`TransactWrite::update`], for any entity.
    pub fn update<E: Entity>(
        self,
        key: PrimaryKey<E>,
        update: Update<E>,
        condition: Option<Condition<E>>,
    ) -> Self {
        Self {
            inner: self.inner.update_any(key, update, condition, None),
        }
    }

    /// [`TransactWrite::delete`], for any entity.
    pub fn delete<E: WithoutUnique + WithoutSoftDelete>(
        self,
        key: PrimaryKey<E>,
        condition: Option<Condition<E>>,
    ) -> Self {
        Self {
            inner: self.inner.delete_any(key, condition, None),
        }
    }

    /// [`TransactWrite::purge`], for any entity.
    pub fn purge<E: WithoutUnique>(
        self,
        key: PrimaryKey<E>,
        condition: Option<Condition<E>>,
    ) -> Self {
        Self {
            inner: self.inner.purge_any(key, condition, None),
        }
    }

    /// [`TransactWrite::condition_check`], for any entity.
    pub fn condition_check<E: Entity>(self, key: PrimaryKey<E>, condition: Condition<E>) -> Self {
        Self {
            inner: self.inner.condition_check_any(key, condition, None),
        }
    }

    /// [`TransactWrite::idempotency_token`].
    pub fn idempotency_token(self, token: impl Into<String>) -> Self {
        Self {
            inner: self.inner.idempotency_token(token),
        }
    }
}

impl Operation for CrossTenantTransactWrite {
    type Output = ();
    const WRITES: bool = true;

    fn describe(&self) -> Op<'_> {
        self.inner.describe()
    }

    fn client_mut(&mut self) -> &mut Client {
        self.inner.client_mut()
    }

    fn execute(self) -> impl Future<Output = Result<()>> + Send + 'static {
        self.inner.execute()
    }
}

operation!([] CrossTenantTransactWrite => ());

impl CrossTenantTransactGet {
    /// [`TransactGet::get`], for any entity.
    pub fn get<E: Entity>(self, key: PrimaryKey<E>) -> Self {
        Self {
            inner: self.inner.get_any(key),
        }
    }
}

impl Operation for CrossTenantTransactGet {
    type Output = TransactGetOutput;
    const WRITES: bool = false;

    fn describe(&self) -> Op<'_> {
        self.inner.describe()
    }

    fn client_mut(&mut self) -> &mut Client {
        self.inner.client_mut()
    }

    fn execute(self) -> impl Future<Output = Result<TransactGetOutput>> + Send + 'static {
        self.inner.execute()
    }
}

operation!([] CrossTenantTransactGet => TransactGetOutput);

impl CrossTenantBatchWrite {
    /// [`BatchWrite::put`], for any entity.
    pub fn put<E: WithoutUnique + WithoutVersion>(self, entity: &E) -> Self {
        Self {
            inner: self.inner.put_any(entity),
        }
    }

    /// [`BatchWrite::put_all`], for any entity.
    pub fn put_all<'a, E: WithoutUnique + WithoutVersion + 'a>(
        self,
        entities: impl IntoIterator<Item = &'a E>,
    ) -> Self {
        entities
            .into_iter()
            .fold(self, |batch, entity| batch.put(entity))
    }

    /// [`BatchWrite::delete`], for any entity.
    pub fn delete<E: WithoutUnique + WithoutSoftDelete>(self, key: PrimaryKey<E>) -> Self {
        Self {
            inner: self.inner.delete_any(key),
        }
    }

    /// [`BatchWrite::purge`], for any entity.
    pub fn purge<E: WithoutUnique>(self, key: PrimaryKey<E>) -> Self {
        Self {
            inner: self.inner.purge_any(key),
        }
    }
}

impl Operation for CrossTenantBatchWrite {
    type Output = BatchWriteOutput;
    const WRITES: bool = true;

    fn describe(&self) -> Op<'_> {
        self.inner.describe()
    }

    fn client_mut(&mut self) -> &mut Client {
        self.inner.client_mut()
    }

    fn execute(self) -> impl Future<Output = Result<BatchWriteOutput>> + Send + 'static {
        self.inner.execute()
    }
}

operation!([] CrossTenantBatchWrite => BatchWriteOutput);
