use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", history)]
#[pk(id)]
#[sk(n, number)]
struct Doc {
    id: String,
    n: u64,
    #[entity(version)]
    version: u64,
}

fn main() {}
