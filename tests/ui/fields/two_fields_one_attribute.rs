use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", rename_all = "camelCase")]
#[pk(user_id)]
struct User {
    user_id: String,
    display_name: String,
    #[entity(rename = "displayName")]
    nickname: String,
}

fn main() {}
