use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
struct User {
    user_id: String,
    #[entity(rename = "__version")]
    revision: u32,
}

fn main() {}
