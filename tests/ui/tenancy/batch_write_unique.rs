use entity_client::{Client, Entity};

// A batch cannot move unique sentinels: the advice names the tenant
// client's writes that can.
#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id, unique(sku))]
#[pk(tenant_id)]
#[sk(product_id)]
struct Product {
    tenant_id: String,
    product_id: String,
    sku: String,
}

async fn write(client: Client, product: Product) {
    let _ = client.tenant("t-001").batch_write().put(&product).await;
}

fn main() {}
