use entity_core::KeyPart;

#[derive(KeyPart)]
struct UserId {
    value: String,
}

fn main() {}
