use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(version, compress)]
    version: u64,
}

fn main() {}
