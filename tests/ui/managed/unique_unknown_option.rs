use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email, case_sensitive = false))]
#[pk(id)]
struct Customer {
    id: String,
    email: String,
}

fn main() {}
