use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(created_at, updated_at)]
    at: entity_core::EpochMillis,
}

fn main() {}
