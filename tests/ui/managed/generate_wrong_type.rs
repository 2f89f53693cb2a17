use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    #[entity(generate = "ulid")]
    id: u64,
}

fn main() {}
