use entity_core::KeyPart;

#[derive(KeyPart)]
struct Id<T>(T);

fn main() {}
