use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(patient_id)]
#[index(by_ward(gsi = "gsi1", pk(ward), projection = include(diagnosis)))]
struct Patient {
    patient_id: String,
    ward: String,
    #[entity(encrypt)]
    diagnosis: String,
}

fn main() {}
