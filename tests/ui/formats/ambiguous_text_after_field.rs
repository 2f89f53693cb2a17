use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{user_id}.{kind}")]
struct User {
    user_id: String,
    kind: String,
}

fn main() {}
