use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", history)]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(version)]
    version: u64,
}

fn main() {}
