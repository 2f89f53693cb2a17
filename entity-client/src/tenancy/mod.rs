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
mod transact;

pub use batch::TenantBatchWrite;
pub use transact::{
    CrossTenantBatchWrite, CrossTenantTransactGet, CrossTenantTransactWrite, TenantTransactGet,
    TenantTransactWrite,
};

use crate::client::Extension;
use crate::ops::batch::get::BatchGet;
use crate::ops::delete::{Delete, Restore};
use crate::ops::get::Get;
use crate::ops::get_unique::GetUnique;
use crate::ops::history_reader::History;
use crate::ops::query::QueryRequest;
use crate::ops::scan::Scan;
use crate::ops::update::UpdateItem;
use crate::ops::write::{Put, Upsert};
use crate::{Client, Error};
use entity_core::managed::UniqueKey;
use entity_core::tenant::{fill_tenant, has_tenant_hole};
use entity_core::{
    Entity, IntoTenantKey, PrimaryKey, Query, Readable, TenantEntity, TenantReadable,
};
use guard::{Scope, TenantGuard};
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
#[derive(Clone, Debug)]
pub struct TenantClient {
    client: Client,
    scope: Arc<Scope>,
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
        let key = scoped.scope.tenant.clone();
        self.inner.tenants.put(key, Arc::new(scoped.clone()));
        scoped
    }

    fn new_tenant(&self, tenant: Arc<str>) -> TenantClient {
        let scope = Arc::new(Scope::new(tenant.clone()));
        let guard = TenantGuard {
            scope: scope.clone(),
        };
        let config = self.sdk().config().to_builder().interceptor(guard).build();
        let sdk = aws_sdk_dynamodb::Client::from_conf(config);
        let client = self
            .with_sdk(sdk)
            .map_inner(|inner| inner.tenant = Some(tenant));
        TenantClient { client, scope }
    }

    /// The client of the tenant of data shared by every tenant
    /// ([`Tenant::COMMON`](entity_core::Tenant::COMMON), `"common"`: seed
    /// 004's `USER#common`).
    pub fn common(&self) -> TenantClient {
        self.tenant(entity_core::Tenant::COMMON)
    }

    /// The plain operations for every entity, tenant entities included,
    /// with no tenant check: for work that spans tenants on purpose
    /// (administration, migrations, reports).
    ///
    /// ```no_run
    /// # use entity_client::{Client, Entity};
    /// # #[derive(Entity)] #[entity(schema = "shop", tenant = tenant_id)] #[pk(tenant_id)] #[sk(id)]
    /// # struct Product { tenant_id: String, id: String }
    /// # async fn demo(client: Client) -> entity_client::Result<()> {
    /// let every_tenant: Vec<Product> = client.cross_tenant().scan::<Product>().all().await?;
    /// # Ok(()) }
    /// ```
    pub fn cross_tenant(&self) -> CrossTenant<'_> {
        CrossTenant { client: self }
    }

    /// The tenant of a tenant client (what its cursors are bound to).
    pub(crate) fn scoped_tenant(&self) -> Option<&str> {
        self.inner.tenant.as_deref()
    }
}

impl TenantClient {
    /// The tenant.
    pub fn tenant(&self) -> &str {
        &self.scope.tenant
    }

    /// The unscoped client this one was made from... with the tenant
    /// check still installed: use it for the entities without a tenant.
    fn scoped<E: TenantReadable + 'static>(&self) -> &Client {
        self.scope.register::<E>();
        &self.client
    }

    fn key<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> PrimaryKey<E> {
        key.into_tenant_key(self.tenant())
    }

    /// An entity of another tenant, refused before anything is sent.
    fn mismatch<E: TenantEntity>(&self, entity: &E) -> Option<Error> {
        (entity.tenant() != self.tenant()).then(|| Error::TenantMismatch {
            expected: self.tenant().to_owned(),
            found: Some(entity.tenant().to_owned()),
        })
    }

    fn whole<E: TenantEntity + 'static>(&self, entity: &E, put: Put<E>) -> Put<E> {
        match self.mismatch(entity) {
            Some(error) => put.refused(error),
            None => put,
        }
    }

    /// Reads one item of this tenant (see [`Client::get`]).
    pub fn get<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> Get<E> {
        let key = self.key(key);
        self.scoped::<E>().get_any(key)
    }

    /// Writes the whole item (see [`Client::put`]); an entity of another
    /// tenant is [`Error::TenantMismatch`], and nothing is sent.
    pub fn put<E: TenantEntity + 'static>(&self, entity: &E) -> Put<E> {
        self.whole(entity, self.scoped::<E>().put_any(entity))
            .identity_guarded()
    }

    /// Writes the item if none has its key (see [`Client::create`]).
    pub fn create<E: TenantEntity + 'static>(&self, entity: &E) -> Put<E> {
        self.whole(entity, self.scoped::<E>().create_any(entity))
            .identity_guarded()
    }

    /// Writes every field into the item (see [`Client::upsert`]).
    pub fn upsert<E: TenantEntity + 'static>(&self, entity: &E) -> Upsert<E> {
        self.whole(entity, self.scoped::<E>().upsert_any(entity))
            .identity_guarded()
    }

    /// Changes an item of this tenant, creating it if missing (see
    /// [`Client::update`]).
    pub fn update<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> UpdateItem<E> {
        let key = self.key(key);
        self.scoped::<E>().update_any(key).identity_guarded()
    }

    /// Changes an item of this tenant that must exist (see
    /// [`Client::patch`]).
    pub fn patch<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> UpdateItem<E> {
        let key = self.key(key);
        self.scoped::<E>().patch_any(key).identity_guarded()
    }

    /// Deletes an item of this tenant (see [`Client::delete`]).
    pub fn delete<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> Delete<E> {
        let key = self.key(key);
        self.scoped::<E>().delete_any(key).identity_guarded()
    }

    /// Deletes an item of this tenant that must exist (see
    /// [`Client::remove`]).
    pub fn remove<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> Delete<E> {
        let key = self.key(key);
        self.scoped::<E>().remove_any(key).identity_guarded()
    }

    /// Restores a soft-deleted item of this tenant (see
    /// [`Client::restore`]).
    pub fn restore<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> Restore<E> {
        let key = self.key(key);
        self.scoped::<E>().restore_any(key).identity_guarded()
    }

    /// Deletes an item of this tenant for good, deleted or not (see
    /// [`Client::purge`]).
    ///
    /// ```
    /// use entity_client::Entity;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "docs", tenant = tenant_id, soft_delete)]
    /// #[pk(tenant_id)]
    /// #[sk(id)]
    /// struct Page { tenant_id: String, id: String }
    ///
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = entity_client::EmbeddedDynamo::start().await?;
    /// # let client = server.client("app");
    /// # client.create_table(&[Page::MODEL]).await?;
    /// let acme = client.tenant("acme");
    /// acme.put(&Page { tenant_id: "acme".into(), id: "home".into() }).await?;
    /// acme.delete(Page::tenant_key("home")).await?; // soft: restorable
    /// acme.purge(Page::tenant_key("home")).await?; // gone for good
    /// assert!(acme.restore(Page::tenant_key("home")).await.is_err());
    /// # Ok(()) }
    /// ```
    pub fn purge<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> Delete<E> {
        let key = self.key(key);
        self.scoped::<E>().purge_any(key).identity_guarded()
    }

    /// The version history of an item of this tenant
    /// (`#[entity(history)]`; see [`Client::history`]).
    ///
    /// ```
    /// use entity_client::Entity;
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "docs", tenant = tenant_id, history)]
    /// #[pk(tenant_id)]
    /// #[sk(id)]
    /// struct Doc { tenant_id: String, id: String, text: String, #[entity(version)] version: u64 }
    ///
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = entity_client::EmbeddedDynamo::start().await?;
    /// # let client = server.client("app");
    /// # client.create_table(&[Doc::MODEL]).await?;
    /// let acme = client.tenant("acme");
    /// let doc = Doc { tenant_id: "acme".into(), id: "d1".into(), text: "draft".into(), version: 0 };
    /// let mut doc = acme.create(&doc).await?;
    /// doc.text = "final".into();
    /// acme.put(&doc).await?;
    /// let versions = acme.history(Doc::tenant_key("d1")).all().await?; // newest first
    /// assert_eq!(versions.iter().map(|d| d.text.as_str()).collect::<Vec<_>>(), ["final", "draft"]);
    /// assert!(client.tenant("globex").history(Doc::tenant_key("d1")).all().await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn history<E: TenantEntity + 'static>(&self, key: impl IntoTenantKey<E>) -> History<E> {
        let key = self.key(key);
        self.scoped::<E>().history_any(key)
    }

    /// Reads the item of this tenant that holds a unique value (see
    /// [`Client::get_unique`]): a tenant entity's lookup
    /// (`Customer::by_email(..)`) is completed with the tenant, so each
    /// tenant finds only its own item; one completed for another tenant is
    /// [`Error::TenantMismatch`], unsent.
    ///
    /// ```
    /// use entity_client::{Entity, Error};
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "crm", tenant = tenant_id, unique(email))]
    /// #[pk(tenant_id)]
    /// #[sk(id)]
    /// struct Customer { tenant_id: String, id: String, email: String }
    ///
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = entity_client::EmbeddedDynamo::start().await?;
    /// # let client = server.client("app");
    /// # client.create_table(&[Customer::MODEL]).await?;
    /// let customer = |tenant: &str, id: &str| Customer {
    ///     tenant_id: tenant.into(), id: id.into(), email: "ada@example.com".into(),
    /// };
    /// let (acme, globex) = (client.tenant("acme"), client.tenant("globex"));
    /// acme.create(&customer("acme", "c1")).await?;
    /// globex.create(&customer("globex", "c9")).await?; // unique within each tenant
    /// let taken = acme.create(&customer("acme", "c2")).await;
    /// assert!(matches!(taken, Err(Error::UniqueViolation { .. })));
    ///
    /// let found = acme.get_unique(Customer::by_email("ada@example.com")).await?;
    /// assert_eq!(found.map(|c| c.id), Some("c1".to_owned()));
    /// # Ok(()) }
    /// ```
    pub fn get_unique<E: TenantEntity + Send + 'static>(&self, key: UniqueKey<E>) -> GetUnique<E> {
        let key = match key.is_tenant_free() {
            true => key.for_tenant(self.tenant()),
            false => key,
        };
        self.scoped::<E>().get_unique_any(key)
    }

    /// Queries this tenant's partition of an index (see [`Client::query`]):
    /// a tenant-free query (`Product::tenant_by_category(..)`) is completed
    /// with the tenant. Its cursors work only on this tenant's client.
    ///
    /// A collection of tenant entities (`#[derive(Collection)]`) is queried
    /// here too: pass [`TenantHole`](entity_core::tenant::TenantHole) for
    /// its tenant (`Members::query(TenantHole, ..)`), which this client
    /// completes; a whole query is checked like every request.
    ///
    /// ```
    /// use entity_client::tenant::TenantHole;
    /// use entity_client::{Collection, Entity};
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "crm", tenant = tenant_id)]
    /// #[pk(tenant_id, id)]
    /// #[sk()]
    /// #[index(team(gsi = "gsi1", collection = "team", pk(tenant_id, account), sk(id)))]
    /// struct User { tenant_id: String, id: String, account: String }
    ///
    /// #[derive(Entity, Debug, Clone, PartialEq)]
    /// #[entity(schema = "crm", tenant = tenant_id)]
    /// #[pk(tenant_id, name)]
    /// #[sk()]
    /// #[index(team(gsi = "gsi1", collection = "team", pk(tenant_id, account), sk(name)))]
    /// struct Role { tenant_id: String, name: String, account: String }
    ///
    /// #[derive(Collection, Debug, PartialEq)]
    /// #[collection(name = "team", pk(tenant_id: String, account: String))]
    /// enum Team { Users(User), Roles(Role) }
    ///
    /// # #[cfg(not(feature = "embedded"))] fn main() {}
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let server = entity_client::EmbeddedDynamo::start().await?;
    /// # let client = server.client("app");
    /// # client.create_table(&[User::MODEL, Role::MODEL]).await?;
    /// let (acme, globex) = (client.tenant("acme"), client.tenant("globex"));
    /// let ada = User { tenant_id: "acme".into(), id: "ada".into(), account: "a1".into() };
    /// let admin = Role { tenant_id: "acme".into(), name: "admin".into(), account: "a1".into() };
    /// acme.put(&ada).await?;
    /// acme.put(&admin).await?;
    /// let team = acme.query(Team::query(TenantHole, "a1")).all().await?;
    /// assert_eq!(team.len(), 2);
    /// assert!(globex.query(Team::query(TenantHole, "a1")).all().await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn query<E: TenantReadable + 'static>(
        &self,
        query: impl Into<Query<E>>,
    ) -> QueryRequest<E> {
        let query = complete_query(query.into(), self.tenant());
        self.scoped::<E>().query_any(query)
    }

    /// Reads many items of this tenant by key (see [`Client::batch_get`]).
    pub fn batch_get<E: TenantEntity + 'static, K: IntoTenantKey<E>>(
        &self,
        keys: impl IntoIterator<Item = K>,
    ) -> BatchGet<E> {
        let tenant = self.tenant().to_owned();
        let keys = keys.into_iter().map(move |k| k.into_tenant_key(&tenant));
        self.scoped::<E>().batch_get_any(keys)
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

/// The plain operations for every entity, tenant entities included
/// ([`Client::cross_tenant`]). Nothing checks tenants here: each key and
/// query is taken as given, so use the accessors that take the tenant
/// (`Product::key(tenant, id)`).
#[derive(Clone, Copy, Debug)]
pub struct CrossTenant<'a> {
    client: &'a Client,
}

impl CrossTenant<'_> {
    /// [`Client::get`], for any entity.
    pub fn get<E: Entity>(&self, key: PrimaryKey<E>) -> Get<E> {
        self.client.get_any(key)
    }

    /// [`Client::put`], for any entity.
    pub fn put<E: Entity>(&self, entity: &E) -> Put<E> {
        self.client.put_any(entity)
    }

    /// [`Client::create`], for any entity.
    pub fn create<E: Entity>(&self, entity: &E) -> Put<E> {
        self.client.create_any(entity)
    }

    /// [`Client::upsert`], for any entity.
    pub fn upsert<E: Entity>(&self, entity: &E) -> Upsert<E> {
        self.client.upsert_any(entity)
    }

    /// [`Client::update`], for any entity.
    pub fn update<E: Entity>(&self, key: PrimaryKey<E>) -> UpdateItem<E> {
        self.client.update_any(key)
    }

    /// [`Client::patch`], for any entity.
    pub fn patch<E: Entity>(&self, key: PrimaryKey<E>) -> UpdateItem<E> {
        self.client.patch_any(key)
    }

    /// [`Client::delete`], for any entity.
    pub fn delete<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        self.client.delete_any(key)
    }

    /// [`Client::remove`], for any entity.
    pub fn remove<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        self.client.remove_any(key)
    }

    /// [`Client::purge`], for any entity.
    pub fn purge<E: Entity>(&self, key: PrimaryKey<E>) -> Delete<E> {
        self.client.purge_any(key)
    }

    /// [`Client::restore`], for any entity.
    pub fn restore<E: Entity>(&self, key: PrimaryKey<E>) -> Restore<E> {
        self.client.restore_any(key)
    }

    /// [`Client::history`], for any entity.
    pub fn history<E: Entity>(&self, key: PrimaryKey<E>) -> History<E> {
        self.client.history_any(key)
    }

    /// [`Client::get_unique`], for any entity: a tenant entity's lookup
    /// completed with its tenant (`Customer::by_email(..).for_tenant("acme")`).
    pub fn get_unique<E: Entity>(&self, key: UniqueKey<E>) -> GetUnique<E> {
        self.client.get_unique_any(key)
    }

    /// [`Client::query`], for any entity or collection.
    pub fn query<E: Readable>(&self, query: impl Into<Query<E>>) -> QueryRequest<E> {
        self.client.query_any(query)
    }

    /// [`Client::scan`], for any entity: every tenant's items.
    pub fn scan<E: Entity>(&self) -> Scan<E> {
        self.client.scan_any()
    }

    /// [`Client::batch_get`], for any entity.
    pub fn batch_get<E: Entity>(
        &self,
        keys: impl IntoIterator<Item = PrimaryKey<E>>,
    ) -> BatchGet<E> {
        self.client.batch_get_any(keys)
    }
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
