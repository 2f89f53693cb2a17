use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(created_at)]
    created_at: entity_core::EpochMillis,
    #[entity(created_at)]
    first_seen: entity_core::EpochMillis,
}

fn main() {}
