use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[index(by_version(gsi = "gsi1", pk(id), sk(version)))]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(version)]
    version: u64,
}

fn main() {}
