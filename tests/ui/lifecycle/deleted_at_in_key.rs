use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", soft_delete)]
#[pk(id)]
#[index(by_deletion(gsi = "gsi1", pk(kind), sk(deleted_at)))]
struct Doc {
    id: String,
    kind: String,
    #[entity(deleted_at)]
    deleted_at: Option<entity_core::EpochMillis>,
}

fn main() {}
