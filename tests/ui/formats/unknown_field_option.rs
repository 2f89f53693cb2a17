use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "ORDER#{n:padded}")]
struct Order {
    n: u32,
}

fn main() {}
