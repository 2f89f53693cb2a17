use entity_core::KeyPart;

#[derive(KeyPart)]
enum Never {}

fn main() {}
