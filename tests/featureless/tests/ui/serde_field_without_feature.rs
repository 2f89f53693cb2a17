use entity_core::Entity;

#[derive(serde::Serialize, serde::Deserialize)]
struct Address {
    city: String,
}

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
struct Customer {
    id: String,
    #[entity(serde)]
    address: Address,
}

fn main() {}
