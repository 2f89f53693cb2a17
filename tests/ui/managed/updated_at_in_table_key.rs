use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[sk(updated_at)]
struct Customer {
    id: String,
    #[entity(updated_at)]
    updated_at: entity_core::EpochMillis,
}

fn main() {}
