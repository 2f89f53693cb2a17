use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(ttl)]
    expires_at: Option<u64>,
}

fn main() {}
