use entity_core::KeyPart;

#[derive(KeyPart)]
enum Status {
    #[key_part(rename = "Done")]
    Finished,
    Done,
}

fn main() {}
