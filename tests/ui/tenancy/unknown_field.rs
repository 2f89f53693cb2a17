use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant)]
#[pk(tenant_id)]
#[sk(product_id)]
struct Product {
    tenant_id: String,
    product_id: String,
}

fn main() {}
