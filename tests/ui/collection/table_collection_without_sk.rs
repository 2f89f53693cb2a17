use entity_core::Entity;

#[derive(Entity)]
#[entity(name = "USER", collection = "userItems")]
#[pk(format = "USER#{user_id}")]
struct User {
    user_id: String,
}

fn main() {}
