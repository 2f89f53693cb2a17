use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email))]
#[pk(id)]
struct Customer {
    id: String,
    email: String,
}

fn main() {
    let f = Customer::fields();
    let _ = Update::<Customer>::new().set(f.email, "ada@example.com");
}
