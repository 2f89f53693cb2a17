use entity_core::Entity;

#[derive(Entity)]
#[entity(name = "User")]
#[pk(user_id)]
struct User {
    user_id: String,
}

fn main() {}
