// A tenant's client does not scan (a scan reads every tenant's items):
// the advice names the tenant's query and the cross-tenant scan.
use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(tenant_id)]
#[sk(product_id)]
struct Product {
    tenant_id: String,
    product_id: String,
}

async fn scans(client: Client) {
    let _ = client.tenant("t-001").scan::<Product>().all().await;
}

fn main() {}
