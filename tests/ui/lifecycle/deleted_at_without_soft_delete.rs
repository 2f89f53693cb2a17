use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(deleted_at)]
    deleted_at: Option<entity_core::EpochMillis>,
}

fn main() {}
