use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    #[entity(generate = "uuid7")]
    id: String,
}

fn main() {}
