use entity_client::{Client, Entity};

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(setting)]
struct Setting {
    setting: String,
}

async fn scopes_a_global_entity(client: Client) {
    let _ = client.tenant("t-001").get(Setting::key("s")).await;
}

fn main() {}
