use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(version)]
    version: f64,
}

fn main() {}
