//! Seed 004's tenant product, and tenant entities whose key formats
//! overlap, shared by the tenancy tests.

use entity_client::Entity;

/// Seed 004's simple entity: `PRODUCT#<tenantCode>` / `<id>`, and a GSI
/// per tenant and category.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Product", tenant = tenant_id)]
#[pk(format = "PRODUCT#{tenant_id}")]
#[sk(format = "{product_id}")]
#[index(by_category(
    gsi = "gsi1",
    pk(format = "PRODUCT#{tenant_id}#{category}"),
    sk(format = "{price:unpadded}")
))]
pub struct Product {
    pub tenant_id: String,
    pub product_id: String,
    pub category: String,
    pub price: u32,
    pub name: String,
}

/// Product `id` of `tenant`, named after both.
pub fn product(tenant: &str, id: &str, category: &str, price: u32) -> Product {
    Product {
        tenant_id: tenant.into(),
        product_id: id.into(),
        category: category.into(),
        price,
        name: format!("{id} of {tenant}"),
    }
}

/// Two tenant entities whose custom formats can spell the same partition:
/// `ORG#{tenant}` for tenant `Xacme` is `ORG#X{tenant}` for tenant `acme`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Note", tenant = tenant_id)]
#[pk(format = "ORG#{tenant_id}")]
#[sk(format = "{id}")]
pub struct Note {
    pub tenant_id: String,
    pub id: String,
    pub text: String,
}

/// See [`Note`].
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Memo", tenant = tenant_id)]
#[pk(format = "ORG#X{tenant_id}")]
#[sk(format = "{id}")]
pub struct Memo {
    pub tenant_id: String,
    pub id: String,
    pub text: String,
}

/// [`Note`]'s key format with soft delete, history and a version: its
/// deletes, updates and restores read the stored item first.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Journal", tenant = tenant_id, soft_delete, history)]
#[pk(format = "ORG#{tenant_id}")]
#[sk(format = "{id}")]
pub struct Journal {
    pub tenant_id: String,
    pub id: String,
    pub text: String,
    #[entity(version)]
    pub version: u64,
}
