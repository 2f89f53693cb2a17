use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(status)]
#[sk(user_id, shards = 10)]
struct User {
    status: String,
    user_id: String,
}

fn main() {}
