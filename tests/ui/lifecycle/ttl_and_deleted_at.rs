use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", soft_delete)]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(ttl, deleted_at)]
    expires_at: Option<entity_core::EpochSeconds>,
}

fn main() {}
