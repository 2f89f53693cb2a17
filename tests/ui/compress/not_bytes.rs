use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(compress)]
    views: u64,
}

fn main() {}
