use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[index(by_tenant(gsi = "gsi3", multi_attribute, pk(tenant), sk(paid)))]
struct Order {
    id: String,
    tenant: String,
    paid: bool,
}

fn main() {}
