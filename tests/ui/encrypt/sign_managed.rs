use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(patient_id)]
#[index(by_ward(gsi = "gsi1", pk(ward)))]
struct Patient {
    patient_id: String,
    // The group setter updates the index keys on their own.
    #[entity(sign)]
    ward: String,
    #[entity(updated_at, sign)]
    updated_at: Option<entity_core::EpochMillis>,
}

fn main() {}
