//! Multi-tenancy: entities whose partition keys hold a tenant
//! (`#[entity(tenant = tenant_id)]`, such as `PRODUCT#<tenant>`).
//!
//! The derive implements [`TenantEntity`] for such an entity and
//! [`NotTenant`] for every other one. The plain client's operations take
//! only `NotTenant` entities, so a tenant entity is read and written
//! through a tenant-scoped client (`client.tenant("t-001")`), which
//! completes the tenant-free keys and queries made here
//! ([`TenantKey`], `Product::tenant_by_category(..)`) with its tenant.

use crate::{Entity, EntityModel, PrimaryKey, Readable};

/// Well-known tenants.
///
/// ```
/// assert_eq!(entity_core::Tenant::COMMON, "common");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Tenant;

impl Tenant {
    /// The tenant of data shared by every tenant (`USER#common`, beside
    /// each tenant's `USER#<tenant>`).
    pub const COMMON: &'static str = "common";
}

/// An entity without a tenant: the plain client's operations take it.
/// `#[derive(Entity)]` implements it for every entity without
/// `#[entity(tenant = ..)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a tenant entity: the plain client cannot read or write it without a tenant",
    label = "a tenant entity's operations need a tenant",
    note = "use `client.tenant(..)` (or `client.common()`) for one tenant's data, or `client.cross_tenant()` to address every tenant on purpose"
)]
pub trait NotTenant {}

/// The tenant of a key value, as [`TenantEntity::key_tenant`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyTenant {
    /// The attribute holds no tenant of this entity.
    NotTenantKey,
    /// The attribute holds this tenant.
    Tenant(String),
    /// The attribute is one of this entity's tenant keys, but its value
    /// does not parse as one.
    Unreadable,
}

/// An entity whose partition keys (the table's and every index's) hold a
/// tenant. `#[derive(Entity)]` implements it for
/// `#[entity(tenant = tenant_id)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tenant, so a tenant client does not address it",
    label = "not a tenant entity",
    note = "use the plain client for entities without `#[entity(tenant = ..)]`"
)]
pub trait TenantEntity: Entity {
    /// The tenant this entity belongs to.
    fn tenant(&self) -> &str;

    /// The tenant that value `value` of attribute `attribute` holds: the
    /// table's and each index's partition key, and the tenant field's own
    /// attribute.
    fn key_tenant(attribute: &str, value: &str) -> KeyTenant;
}

/// Reads the tenant a key value holds, for one entity
/// ([`TenantEntity::key_tenant`]).
pub type KeyTenantReader = fn(&str, &str) -> KeyTenant;

/// What a tenant client queries: a tenant entity, or a collection
/// (`#[derive(Collection)]`) whose every member is one. The client's
/// request check reads keys with each entity's model and reader.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not read through a tenant client",
    label = "not a tenant entity, nor a collection of tenant entities",
    note = "a tenant client queries tenant entities (`#[entity(tenant = ..)]`) and collections whose every member is one; use the plain client for entities and collections without a tenant, and `client.cross_tenant()` for a collection that mixes both"
)]
pub trait TenantReadable: Readable {
    /// Each entity read (the entity, or every member of the collection):
    /// its model and its key reader.
    fn tenant_readers() -> Vec<(&'static EntityModel, KeyTenantReader)>;
}

impl<E: TenantEntity> TenantReadable for E {
    fn tenant_readers() -> Vec<(&'static EntityModel, KeyTenantReader)> {
        vec![(E::MODEL, E::key_tenant as KeyTenantReader)]
    }
}

/// The mark a tenant-free key holds where its tenant goes: U+10FFFF,
/// which no composed key holds (values escape it, and literal key text
/// holding it is a compile error).
const HOLE: char = char::MAX;

/// A key argument standing for the tenant: it writes the hole a tenant
/// client fills with its own ([`fill_tenant`]). The tenant-free composers
/// (`Product::tenant_key(..)`, `Product::tenant_by_category(..)`, the
/// unique lookups of a tenant entity) pass it for the tenant field; pass
/// it yourself for the tenant of a collection's query
/// (`Members::query(TenantHole, ..)`), which a tenant client completes.
///
/// ```
/// use entity_core::tenant::{fill_tenant, TenantHole};
/// use entity_core::KeyArg;
///
/// let mut pk = String::from("ORG#");
/// KeyArg::<String>::encode_arg(&TenantHole, &mut pk);
/// assert_eq!(fill_tenant(&pk, "acme"), "ORG#acme");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TenantHole;

// Never offered in rustc's help on a wrong key value: it is the client's.
#[diagnostic::do_not_recommend]
impl crate::KeyArg<String> for TenantHole {
    fn encode_arg(&self, out: &mut String) {
        out.push(HOLE);
    }
    fn to_attribute_arg(
        &self,
    ) -> Result<Option<aws_sdk_dynamodb::types::AttributeValue>, crate::AttributeError> {
        Ok(None)
    }
}

/// Whether key text is tenant-free: it holds a hole for the tenant.
pub fn has_tenant_hole(key: &str) -> bool {
    key.contains(HOLE)
}

/// Key text with `tenant`, encoded as any key value, in each hole.
///
/// ```
/// use entity_core::tenant::{fill_tenant, TenantHole};
/// use entity_core::KeyArg;
///
/// let mut key = String::from("PRODUCT#");
/// KeyArg::<String>::encode_arg(&TenantHole, &mut key);
/// assert_eq!(fill_tenant(&key, "t 1"), "PRODUCT#t%201");
/// ```
pub fn fill_tenant(key: &str, tenant: &str) -> String {
    let mut out = String::with_capacity(key.len() + tenant.len());
    let mut pieces = key.split(HOLE);
    if let Some(first) = pieces.next() {
        out.push_str(first);
    }
    for piece in pieces {
        crate::key::escape_into(tenant, &mut out);
        out.push_str(piece);
    }
    out
}

/// A table key without its tenant (`Product::tenant_key("p-1")`): a tenant
/// client completes it with its own.
pub struct TenantKey<E> {
    key: PrimaryKey<E>,
}

impl<E> TenantKey<E> {
    /// A key whose tenant composites are [`TenantHole`]s (the derive's
    /// tenant-free composers).
    #[doc(hidden)]
    pub fn from_holes(key: PrimaryKey<E>) -> Self {
        Self { key }
    }

    /// The key of `tenant`'s item.
    pub fn for_tenant(&self, tenant: &str) -> PrimaryKey<E> {
        PrimaryKey::new(
            self.key.pk_attribute,
            fill_tenant(&self.key.pk, tenant),
            self.key
                .sk
                .as_ref()
                .map(|(attribute, sk)| (*attribute, fill_tenant(sk, tenant))),
        )
    }
}

impl<E> Clone for TenantKey<E> {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
        }
    }
}

impl<E> std::fmt::Debug for TenantKey<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("TenantKey").field(&self.key).finish()
    }
}

/// A key a tenant client takes: a [`TenantKey`], completed with its
/// tenant, or a whole [`PrimaryKey`], checked to be its tenant's.
pub trait IntoTenantKey<E> {
    /// The key of `tenant`'s item.
    fn into_tenant_key(self, tenant: &str) -> PrimaryKey<E>;
}

impl<E> IntoTenantKey<E> for TenantKey<E> {
    fn into_tenant_key(self, tenant: &str) -> PrimaryKey<E> {
        self.for_tenant(tenant)
    }
}

impl<E> IntoTenantKey<E> for PrimaryKey<E> {
    fn into_tenant_key(self, _: &str) -> PrimaryKey<E> {
        self
    }
}

/// The model of an entity's tenant: the field and its attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TenantModel {
    /// The tenant field (`tenant_id`).
    pub field: &'static str,
    /// Its attribute name.
    pub attribute: &'static str,
}
