use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(ttl, serde)]
    expires_at: entity_core::EpochSeconds,
}

fn main() {}
