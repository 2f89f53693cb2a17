use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email))]
#[pk(id)]
#[index(by_address(gsi = "gsi1", pk(email)))]
struct Customer {
    id: String,
    email: String,
}

fn main() {
    // A unique field in an index key has no group setter: only `put` and
    // `upsert` change it, moving its sentinel.
    let _ = Update::<Customer>::new().apply(Customer::set_email("ada@example.com"));
}
