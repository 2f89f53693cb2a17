use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(product_id)]
#[sk(tenant_id)]
struct Product {
    tenant_id: String,
    product_id: String,
}

fn main() {}
