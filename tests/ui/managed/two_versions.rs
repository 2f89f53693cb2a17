use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(version)]
    version: u64,
    #[entity(version)]
    revision: u64,
}

fn main() {}
