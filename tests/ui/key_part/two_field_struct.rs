use entity_core::KeyPart;

#[derive(KeyPart)]
struct Pair(String, String);

fn main() {}
