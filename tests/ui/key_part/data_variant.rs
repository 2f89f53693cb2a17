use entity_core::KeyPart;

#[derive(KeyPart)]
enum Status {
    Open,
    Blocked(String),
}

fn main() {}
