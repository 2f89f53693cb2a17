use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(format = "STATUS#{status}", shards = 10)]
struct User {
    status: String,
    user_id: String,
}

fn main() {}
