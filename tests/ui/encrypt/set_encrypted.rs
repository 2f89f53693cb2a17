use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(patient_id)]
struct Patient {
    patient_id: String,
    #[entity(encrypt)]
    diagnosis: String,
}

fn main() {
    // An update would break the item's signature: `put` the whole item.
    let _ = Update::<Patient>::new().set(Patient::fields().diagnosis, "recovered");
}
