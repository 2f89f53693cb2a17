use entity_core::Entity;

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
