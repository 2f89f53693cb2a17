use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(created_at, ttl)]
    created_at: entity_core::EpochSeconds,
}

fn main() {}
