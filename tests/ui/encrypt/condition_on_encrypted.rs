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
    // DynamoDB holds only the ciphertext: a filter on it cannot match.
    let _ = Patient::fields().diagnosis.eq("influenza");
}
