use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(ttl, compress)]
    expires_at: Option<entity_core::EpochSeconds>,
}

fn main() {}
