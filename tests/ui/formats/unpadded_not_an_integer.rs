use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{name:unpadded}")]
struct User {
    name: String,
}

fn main() {}
