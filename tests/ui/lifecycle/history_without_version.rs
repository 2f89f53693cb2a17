use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", history)]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
}

fn main() {}
