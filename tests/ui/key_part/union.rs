use entity_core::KeyPart;

#[derive(KeyPart)]
union Raw {
    a: u32,
}

fn main() {}
