use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(tenant_id)]
#[sk(product_id)]
#[index(by_category(gsi = "gsi1", pk(category), sk(product_id)))]
struct Product {
    tenant_id: String,
    product_id: String,
    category: String,
}

fn main() {}
