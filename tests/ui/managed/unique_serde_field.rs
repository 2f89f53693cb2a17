use entity_core::Entity;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Email(String);

#[derive(Entity)]
#[entity(schema = "shop", unique(email))]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(serde)]
    email: Email,
}

fn main() {}
