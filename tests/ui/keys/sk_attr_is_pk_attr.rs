use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
#[sk(attr = "pk", format = "PROFILE")]
struct User {
    user_id: String,
}

fn main() {}
