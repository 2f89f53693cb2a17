use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(tenant_id)]
#[sk(product_id)]
struct Product {
    tenant_id: u32,
    product_id: String,
}

fn main() {}
