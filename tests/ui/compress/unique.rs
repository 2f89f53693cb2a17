use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", unique(slug))]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(compress)]
    slug: String,
}

fn main() {}
