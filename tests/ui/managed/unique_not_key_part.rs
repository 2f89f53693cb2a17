use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(tags))]
#[pk(id)]
struct Customer {
    id: String,
    tags: Option<Vec<String>>,
}

fn main() {}
