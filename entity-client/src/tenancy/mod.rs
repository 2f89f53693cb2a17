//! Multi-tenancy: a client scoped to one tenant, and the explicit way
//! around it.
//!
//! An entity declared with `#[entity(tenant = tenant_id)]` holds its tenant
//! in every partition key. The plain [`Client`] does not take it (its
//! operations require [`NotTenant`](entity_core::NotTenant), a compile
//! error naming the way out); [`Client::tenant`] gives a [`TenantClient`],
//! whose operations complete tenant-free keys and queries with its tenant,
//! refuse an entity of another tenant, and whose every request is checked
//! before it is sent to name only that tenant's keys
//! ([`guard`](self::guard)). [`Client::cross_tenant`] reaches every
//! tenant on purpose, visibly in code review.

mod batch;
mod guard;

pub use batch::TenantBatchWrite;

use crate::client::Extension;
use crate::scoping::{sealed, CrossTenant, Reaches, Reads, Scope, ScopeKey};
use crate::{Client, Error};
use entity_core::managed::UniqueKey;
use entity_core::tenant::{fill_tenant, has_tenant_hole, TenantKey};
use entity_core::{PrimaryKey, Query, TenantEntity, TenantReadable};
use guard::{KeyCheck, TenantGuard};
use std::sync::Arc;

/// A client scoped to one tenant: reads and writes of tenant entities
/// (`#[entity(tenant = ..)]`) address only that tenant's partitions.
///
/// Keys and queries come without the tenant (`Product::tenant_key(id)`,
/// `Product::tenant_by_category(cat)`) and are completed with this
/// client's; a whole key or query (`Product::key(tenant, id)`) is taken
/// too, and checked. Every request is checked before it is sent: a key of
/// another tenant, in any part of it, is [`Error::TenantMismatch`] and
/// nothing is sent. Every write is also conditioned on the item being
/// absent or of its entity: another tenant's item of an entity whose
/// format spells the same key is [`Error::TenantMismatch`], untouched.
/// Cursors are bound to the tenant.
///
/// ```
/// use entity_client::{Entity, Tenant};
///
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(schema = "shop", tenant = tenant_id)]
/// #[pk(format = "PRODUCT#{tenant_id}")]
/// #[sk(product_id)]
/// struct Product { tenant_id: String, product_id: String, name: String }
///
/// # #[cfg(not(feature = "embedded"))] fn main() {}
/// # #[cfg(feature = "embedded")]
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let server = entity_client::EmbeddedDynamo::start().await?;
/// # let client = server.client("app");
/// # client.create_table(&[Product::MODEL]).await?;
/// let acme = client.tenant("acme");
/// let p = Product { tenant_id: "acme".into(), product_id: "p1".into(), name: "Anvil".into() };
/// acme.put(&p).await?;
/// assert_eq!(acme.get(Product::tenant_key("p1")).await?, Some(p.clone()));
/// assert_eq!(client.tenant("globex").get(Product::tenant_key("p1")).await?, None);
/// assert_eq!(acme.query(Product::tenant_primary()).all().await?, vec![p]);
/// # let _ = Tenant::COMMON;
/// # Ok(()) }
/// ```
pub type TenantClient = Client<Tenant>;

/// The scope of a tenant's client ([`TenantClient`], made by
/// [`Client::tenant`]): tenant entities, and collections whose every
/// member is one, of this tenant only.
///
/// It completes tenant-free keys, queries and unique lookups with its
/// tenant, refuses an entity of another tenant
/// ([`Error::TenantMismatch`], nothing sent), conditions every write on
/// its item being absent or of its entity, and checks every request
/// before it is sent.
///
/// ```
/// use entity_client::expr::Update;
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
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Tenant {
    check: Arc<KeyCheck>,
}

impl sealed::Sealed for Tenant {}

impl Scope for Tenant {
    const GUARDED: bool = true;
}

impl<R: TenantReadable + 'static> Reads<R> for Tenant {
    fn enter(&self) {
        self.check.register::<R>();
    }

    fn query(&self, query: Query<R>) -> Query<R> {
        complete_query(query, &self.check.tenant)
    }
}

impl<E: TenantEntity + 'static> Reaches<E> for Tenant {
    fn refuse(&self, entity: &E) -> Option<Error> {
        (entity.tenant() != &*self.check.tenant).then(|| Error::TenantMismatch {
            expected: self.check.tenant.to_string(),
            found: Some(entity.tenant().to_owned()),
        })
    }

    fn unique(&self, key: UniqueKey<E>) -> UniqueKey<E> {
        match key.is_tenant_free() {
            true => key.for_tenant(&self.check.tenant),
            false => key,
        }
    }
}

/// A tenant-free key (`Product::tenant_key(..)`), completed with the
/// tenant.
impl<E> ScopeKey<E, Tenant> for TenantKey<E> {
    fn complete(self, scope: &Tenant) -> PrimaryKey<E> {
        self.for_tenant(&scope.check.tenant)
    }
}

impl Extension for TenantClient {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Client {
    /// A client scoped to `tenant` (see [`TenantClient`]). It shares this
    /// client's connections and settings, behind an SDK client of its own
    /// that checks each request; this client keeps the tenant clients it
    /// made (up to 4,096 tenants) and hands them out again, so asking
    /// for a tenant's client on every request is cheap.
    pub fn tenant(&self, tenant: impl AsRef<str>) -> TenantClient {
        let tenant = tenant.as_ref();
        let cached = self.inner.tenants.get(tenant);
        if let Some(cached) = cached.as_deref().and_then(|c| c.as_any().downcast_ref()) {
            return TenantClient::clone(cached);
        }
        let scoped = self.new_tenant(Arc::from(tenant));
        let key = scoped.scope.check.tenant.clone();
        self.inner.tenants.put(key, Arc::new(scoped.clone()));
        scoped
    }

    fn new_tenant(&self, tenant: Arc<str>) -> TenantClient {
        let check = Arc::new(KeyCheck::new(tenant.clone()));
        let guard = TenantGuard {
            scope: check.clone(),
        };
        let client = self.intercepted(guard, |inner| inner.tenant = Some(tenant));
        Client {
            inner: client.inner,
            scope: Tenant { check },
        }
    }

    /// The client of the tenant of data shared by every tenant
    /// ([`Tenant::COMMON`](entity_core::Tenant::COMMON), `"common"`).
    pub fn common(&self) -> TenantClient {
        self.tenant(entity_core::Tenant::COMMON)
    }

    /// This client in the scope of every tenant: every operation, for
    /// every entity, tenant entities included, with no tenant check. For
    /// work that spans tenants on purpose (administration, migrations,
    /// reports); keys and queries are taken as given, so use the
    /// accessors that take the tenant (`Product::key(tenant, id)`).
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity};
    /// # #[derive(Entity)] #[entity(schema = "shop", tenant = tenant_id)] #[pk(tenant_id)] #[sk(id)]
    /// # struct Product { tenant_id: String, id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let every_tenant: Vec<Product> = client.cross_tenant().scan::<Product>().all().await?;
    /// # Ok(()) }
    /// ```
    pub fn cross_tenant(&self) -> Client<CrossTenant> {
        Client {
            inner: self.inner.clone(),
            scope: CrossTenant,
        }
    }

    /// The tenant of a tenant client (what its cursors are bound to).
    pub(crate) fn scoped_tenant(&self) -> Option<&str> {
        self.inner.tenant.as_deref()
    }
}

impl TenantClient {
    /// The tenant.
    pub fn tenant(&self) -> &str {
        &self.scope.check.tenant
    }

    /// Checks `key` (a table key about to be written) is this tenant's.
    pub(crate) fn check_key(&self, key: &entity_core::Item) -> Result<(), Error> {
        self.scope.check.check_key(key)
    }
}

/// A tenant-free query's partition key, completed with `tenant`; every
/// other part kept.
fn complete_query<E>(query: Query<E>, tenant: &str) -> Query<E> {
    let (attribute, pk) = query.partition_key();
    if query.is_multi_attribute() || !has_tenant_hole(pk) {
        return query;
    }
    let mut completed = Query::new(query.index_name(), attribute, fill_tenant(pk, tenant));
    if let Some((sk_attribute, condition)) = query.sort_condition() {
        completed = completed.with_sort(sk_attribute, condition.clone());
    }
    if !query.scan_index_forward() {
        completed = completed.descending();
    }
    if let Some(limit) = query.get_limit() {
        completed = completed.limit(limit);
    }
    if let Some(sharding) = query.sharding() {
        completed = completed.sharded(*sharding);
    }
    completed
}

#[cfg(test)]
mod tests {
    use super::*;
    use entity_core::tenant::TenantHole;
    use entity_core::{KeyArg, SortCondition};

    struct Product;

    #[test]
    fn a_tenant_free_query_is_completed_and_keeps_everything_else() {
        let mut pk = String::from("PRODUCT#");
        KeyArg::<String>::encode_arg(&TenantHole, &mut pk);
        let free: Query<Product> = Query::new(Some("gsi1"), "gsi1pk", pk)
            .with_sort("gsi1sk", SortCondition::BeginsWith("cat_".into()))
            .descending()
            .limit(7);
        let expected: Query<Product> = Query::new(Some("gsi1"), "gsi1pk", "PRODUCT#a%23b".into())
            .with_sort("gsi1sk", SortCondition::BeginsWith("cat_".into()))
            .descending()
            .limit(7);
        assert_eq!(complete_query(free, "a#b"), expected);
        // A whole query is left as it is (the guard checks it).
        assert_eq!(complete_query(expected.clone(), "other"), expected);
    }
}
