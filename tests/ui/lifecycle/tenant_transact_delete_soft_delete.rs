use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "app", tenant = tenant_id, soft_delete)]
#[pk(format = "ORG#{tenant_id}")]
#[sk(session_id)]
struct Session {
    tenant_id: String,
    session_id: String,
}

async fn deletes_in_a_tenant_transaction(client: Client) {
    let _ = client
        .tenant("acme")
        .transact_write()
        .delete(Session::tenant_key("s1"), None)
        .await;
}

fn main() {}
