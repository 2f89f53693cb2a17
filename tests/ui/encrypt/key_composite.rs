use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(patient_id)]
#[index(by_ssn(gsi = "gsi1", pk(ssn)))]
struct Patient {
    patient_id: String,
    #[entity(encrypt)]
    ssn: String,
}

fn main() {}
