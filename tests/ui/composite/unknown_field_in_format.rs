use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{usr_id}")]
struct User {
    user_id: String,
}

fn main() {}
