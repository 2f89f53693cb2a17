use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(version)]
    #[entity(generate = "ulid")]
    token: String,
}

fn main() {}
