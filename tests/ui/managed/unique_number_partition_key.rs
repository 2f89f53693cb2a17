use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email))]
#[pk(id, number)]
struct Customer {
    id: u64,
    email: String,
}

fn main() {}
