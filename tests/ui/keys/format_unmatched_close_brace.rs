use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER}#{user_id}")]
struct User {
    user_id: String,
}

fn main() {}
