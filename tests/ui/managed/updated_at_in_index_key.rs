use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[index(recent(gsi = "gsi1", pk(tenant_id), sk(updated_at)))]
struct Customer {
    id: String,
    tenant_id: String,
    #[entity(updated_at)]
    updated_at: entity_core::EpochMillis,
}

fn main() {}
