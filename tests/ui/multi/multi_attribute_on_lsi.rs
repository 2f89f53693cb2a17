use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(tenant)]
#[sk(id)]
#[index(by_region(lsi = "lsi1", multi_attribute, sk(region)))]
struct Order {
    tenant: String,
    id: String,
    region: String,
}

fn main() {}
