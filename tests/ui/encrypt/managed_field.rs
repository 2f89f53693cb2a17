use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(patient_id)]
struct Patient {
    patient_id: String,
    #[entity(version, encrypt)]
    version: u64,
}

fn main() {}
