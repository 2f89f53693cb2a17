use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", soft_delete)]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(deleted_at)]
    deleted_at: entity_core::EpochMillis,
}

fn main() {}
