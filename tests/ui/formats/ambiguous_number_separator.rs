use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "{id}@{version:unpadded}")]
#[sk(format = "{a}-{b}")]
struct Order {
    id: String,
    version: u32,
    a: i32,
    b: i64,
}

fn main() {}
