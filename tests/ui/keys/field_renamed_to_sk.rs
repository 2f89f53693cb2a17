use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
#[sk(format = "PROFILE")]
struct User {
    user_id: String,
    #[entity(rename = "sk")]
    sort_key: String,
}

fn main() {}
