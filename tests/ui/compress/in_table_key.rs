use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
struct Doc {
    #[entity(compress)]
    id: String,
    body: String,
}

fn main() {}
