//! Transactions of a tenant client: every item is of its tenant, and every
//! write is guarded like the tenant client's single writes.

use super::TenantClient;
use crate::ops::managed::Mode;
use crate::ops::single::IdentityGuard;
use crate::ops::transact::{TransactGet, TransactGetOutput, TransactWrite};
use crate::ops::BoxFuture;
use crate::Result;
use entity_core::expr::{Condition, Update};
use entity_core::{IntoTenantKey, TenantEntity, WithoutUnique};
use std::future::IntoFuture;

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

/// A read transaction of one tenant ([`TenantClient::transact_get`]).
#[must_use = "a request does nothing until it is awaited"]
pub struct TenantTransactGet {
    tenant: TenantClient,
    inner: TransactGet,
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
    pub fn delete<E: TenantEntity + WithoutUnique + 'static>(
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

impl IntoFuture for TenantTransactWrite {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        self.inner.into_future()
    }
}

impl TenantTransactGet {
    /// Reads the item of this tenant with this key.
    pub fn get<E: TenantEntity + 'static>(self, key: impl IntoTenantKey<E>) -> Self {
        self.tenant.scope.register::<E>();
        let key = key.into_tenant_key(self.tenant.tenant());
        Self {
            inner: self.inner.get_any(key),
            ..self
        }
    }
}

impl IntoFuture for TenantTransactGet {
    type Output = Result<TransactGetOutput>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        self.inner.into_future()
    }
}
