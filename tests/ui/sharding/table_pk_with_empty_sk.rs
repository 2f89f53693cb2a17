use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(status, shards = 10)]
#[sk()]
struct User {
    status: String,
    user_id: String,
}

fn main() {}
