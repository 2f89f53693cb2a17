use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email, email))]
#[pk(id)]
struct Customer {
    id: String,
    email: String,
}

fn main() {}
