use entity_core::KeyPart;

#[derive(KeyPart)]
struct Score(f64);

fn main() {}
