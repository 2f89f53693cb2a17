use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[sk(user_id)]
struct User {
    user_id: String,
}

fn main() {}
