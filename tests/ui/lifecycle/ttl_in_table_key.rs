use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk(expires_at)]
struct Doc {
    id: String,
    #[entity(ttl)]
    expires_at: entity_core::EpochSeconds,
}

fn main() {}
