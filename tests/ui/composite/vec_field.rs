use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(tags)]
struct Task {
    tags: Vec<String>,
}

fn main() {}
