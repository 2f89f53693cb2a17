use entity_core::Entity;

struct Avatar;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
struct User {
    user_id: String,
    avatar: Avatar,
}

fn main() {}
