use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", unique(email))]
#[pk(patient_id)]
struct Patient {
    patient_id: String,
    #[entity(encrypt)]
    email: String,
}

fn main() {}
