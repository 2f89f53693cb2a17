use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "app", soft_delete)]
#[pk(session_id)]
struct Session {
    session_id: String,
}

async fn batch_deletes(client: Client) {
    let _ = client.batch_write().delete(Session::key("s1")).await;
}

fn main() {}
