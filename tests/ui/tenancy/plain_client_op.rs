use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(format = "PRODUCT#{tenant_id}")]
#[sk(product_id)]
struct Product {
    tenant_id: String,
    product_id: String,
}

async fn forgets_the_tenant(client: Client) {
    let _ = client.get(Product::key("t-001", "p1")).await;
}

fn main() {}
