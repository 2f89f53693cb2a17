use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{user_id}x")]
struct User {
    user_id: String,
}

fn main() {}
