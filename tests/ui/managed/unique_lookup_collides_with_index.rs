use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email))]
#[index(by_email(gsi = "gsi1", pk(email)))]
#[pk(id)]
struct Customer {
    id: String,
    email: String,
}

fn main() {}
