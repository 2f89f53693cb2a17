use entity_core::Entity;

#[derive(Entity)]
#[pk(user_id, format = "USER#{user_id}")]
struct User {
    user_id: String,
}

fn main() {}
