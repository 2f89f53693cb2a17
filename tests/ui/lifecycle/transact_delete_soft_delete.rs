use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "app", soft_delete)]
#[pk(session_id)]
struct Session {
    session_id: String,
}

async fn deletes_in_a_transaction(client: Client) {
    let _ = client
        .transact_write()
        .delete(Session::key("s1"), None)
        .await;
}

fn main() {}
