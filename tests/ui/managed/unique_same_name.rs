use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email, name = "contact"), unique(phone, name = "contact"))]
#[pk(id)]
struct Customer {
    id: String,
    email: String,
    phone: String,
}

fn main() {}
