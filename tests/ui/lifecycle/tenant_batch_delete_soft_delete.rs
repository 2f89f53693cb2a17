use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "app", tenant = tenant_id, soft_delete)]
#[pk(format = "ORG#{tenant_id}")]
#[sk(session_id)]
struct Session {
    tenant_id: String,
    session_id: String,
}

async fn deletes_in_a_tenant_batch(client: Client) {
    let _ = client
        .tenant("acme")
        .batch_write()
        .delete(Session::tenant_key("s1"))
        .await;
}

fn main() {}
