use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[index(by_tenant(gsi = "gsi3", multi_attribute, pk(tenant), sk(region, tenant)))]
struct Order {
    id: String,
    tenant: String,
    region: String,
}

fn main() {}
