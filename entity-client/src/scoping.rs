//! The client's scope as a type (public as [`scope`](crate::scope)): the
//! traits every operation asks its scope through, and the two scopes that
//! need no tenant. The tenant's scope lives with its request check
//! (`tenancy`).

use crate::Error;
use entity_core::managed::UniqueKey;
use entity_core::{Entity, NotTenant, PrimaryKey, Query, Readable};

pub(crate) mod sealed {
    /// Only this crate's scopes are scopes.
    pub trait Sealed {}
}

/// A client scope: [`Unscoped`], `Tenant` or [`CrossTenant`].
pub trait Scope: sealed::Sealed + Clone + std::fmt::Debug + Send + Sync + 'static {
    /// Whether every write of this scope is conditioned on its item being
    /// absent or of the written entity (the tenant scope: another tenant's
    /// item under an overlapping key format is refused, not overwritten).
    const GUARDED: bool = false;
}

/// A scope that reads `R` (an entity or a collection): the one place a
/// query is completed for the scope.
#[diagnostic::on_unimplemented(
    message = "this client's scope does not read `{R}`",
    label = "not read in this scope",
    note = "entities without a tenant are read through the plain client, tenant entities through `client.tenant(..)`, and anything through `client.cross_tenant()`"
)]
pub trait Reads<R: Readable>: Scope {
    /// Called before every operation on `R` (the tenant scope registers
    /// `R`'s key reader with its request check).
    fn enter(&self) {}

    /// The query this scope sends for `query`.
    fn query(&self, query: Query<R>) -> Query<R> {
        query
    }
}

/// A scope that reads and writes the entity `E`.
#[diagnostic::on_unimplemented(
    message = "this client's scope does not reach `{E}`",
    label = "not reached in this scope",
    note = "entities without a tenant are read and written through the plain client, tenant entities through `client.tenant(..)`, and any entity through `client.cross_tenant()`"
)]
pub trait Reaches<E: Entity>: Reads<E> {
    /// Refuses `entity` in this scope (another tenant's), before sending.
    fn refuse(&self, entity: &E) -> Option<Error> {
        let _ = entity;
        None
    }

    /// The unique lookup this scope sends for `key` (the tenant scope
    /// completes a tenant-free one).
    fn unique(&self, key: UniqueKey<E>) -> UniqueKey<E> {
        key
    }
}

/// A scope that scans the table for `E`.
#[diagnostic::on_unimplemented(
    message = "a tenant client does not scan: a scan reads every tenant's items",
    label = "no scan in a tenant's scope",
    note = "query this tenant's partition (`.query(..)`), or scan every tenant on purpose with `client.cross_tenant().scan()`"
)]
pub trait Scans<E: Entity>: Reaches<E> {}

/// A key an operation of scope `S` takes for `E`: a [`PrimaryKey`] in
/// every scope, and in a tenant's also a tenant-free key
/// (`Product::tenant_key(..)`), completed with its tenant.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a key of `{E}` in this client's scope",
    label = "not a key of this scope",
    note = "pass the entity's key (`{E}::key(..)`); a tenant client also takes its tenant-free key (`{E}::tenant_key(..)`)"
)]
pub trait ScopeKey<E, S> {
    /// The whole key, in scope `scope`.
    fn complete(self, scope: &S) -> PrimaryKey<E>;
}

/// The plain client's scope ([`Client`](crate::Client), the default):
/// entities and collections without a tenant.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unscoped;

impl sealed::Sealed for Unscoped {}
impl Scope for Unscoped {}
impl<R: Readable + NotTenant> Reads<R> for Unscoped {}
impl<E: Entity + NotTenant> Reaches<E> for Unscoped {}
impl<E: Entity + NotTenant> Scans<E> for Unscoped {}

/// The scope of `client.cross_tenant()`: every entity and collection,
/// tenant entities included, with no tenant check. Keys and queries are
/// taken as given, so use the accessors that take the tenant
/// (`Product::key(tenant, id)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CrossTenant;

impl sealed::Sealed for CrossTenant {}
impl Scope for CrossTenant {}
impl<R: Readable> Reads<R> for CrossTenant {}
impl<E: Entity> Reaches<E> for CrossTenant {}
impl<E: Entity> Scans<E> for CrossTenant {}

/// A whole key is a key in every scope (a tenant's checks it before
/// sending), so code generic over the scope can pass one.
impl<E, S: Scope> ScopeKey<E, S> for PrimaryKey<E> {
    fn complete(self, _: &S) -> PrimaryKey<E> {
        self
    }
}
