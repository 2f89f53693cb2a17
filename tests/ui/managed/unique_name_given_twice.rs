use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email, name = "a", name = "b"))]
#[pk(id)]
struct Customer {
    id: String,
    email: String,
}

fn main() {}
