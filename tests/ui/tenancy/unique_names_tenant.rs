use entity_core::Entity;

// A tenant entity's unique values are unique within their tenant already.
#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id, unique(tenant_id, sku))]
#[pk(tenant_id)]
#[sk(product_id)]
struct Product {
    tenant_id: String,
    product_id: String,
    sku: String,
}

fn main() {}
