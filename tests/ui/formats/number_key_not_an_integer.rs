use entity_core::Entity;

#[derive(Entity)]
#[pk(user_id, number)]
struct User {
    user_id: String,
}

fn main() {}
