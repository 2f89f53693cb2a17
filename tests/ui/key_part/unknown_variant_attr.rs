use entity_core::KeyPart;

#[derive(KeyPart)]
enum Status {
    #[key_part(renam = "open")]
    Open,
    Done,
}

fn main() {}
