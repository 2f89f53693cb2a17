use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(tenant_id, value_casing = "lower")]
#[sk(product_id)]
struct Product {
    tenant_id: String,
    product_id: String,
}

fn main() {}
