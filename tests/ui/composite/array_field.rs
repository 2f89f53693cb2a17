use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(code)]
struct Task {
    code: [u8; 4],
}

fn main() {}
