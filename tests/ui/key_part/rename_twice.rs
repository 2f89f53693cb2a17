use entity_core::KeyPart;

#[derive(KeyPart)]
enum Status {
    #[key_part(rename = "open", rename = "o")]
    Open,
    Done,
}

fn main() {}
