use entity_core::Entity;

// One missing schema, two keys that need it.
#[derive(Entity)]
#[pk(user_id)]
#[sk(email)]
struct User {
    user_id: String,
    email: String,
}

fn main() {}
