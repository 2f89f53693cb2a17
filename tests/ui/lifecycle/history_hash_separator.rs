use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", history(separator = "#v"))]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(version)]
    version: u64,
}

fn main() {}
