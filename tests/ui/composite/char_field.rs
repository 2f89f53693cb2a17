use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(initial)]
struct Task {
    initial: char,
}

fn main() {}
