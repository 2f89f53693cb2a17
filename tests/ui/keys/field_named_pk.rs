use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
struct User {
    user_id: String,
    pk: String,
}

fn main() {}
