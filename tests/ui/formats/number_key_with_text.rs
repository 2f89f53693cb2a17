use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{user_id}", number)]
struct User {
    user_id: u64,
}

fn main() {}
