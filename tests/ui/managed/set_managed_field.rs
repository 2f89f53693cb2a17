use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(updated_at)]
    updated_at: entity_core::EpochMillis,
}

fn main() {
    let f = Customer::fields();
    let _ = Update::<Customer>::new().set(f.updated_at, entity_core::EpochMillis(0));
}
