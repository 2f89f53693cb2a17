use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(tenant, region, multi_attribute)]
struct Order {
    tenant: String,
    region: String,
}

fn main() {}
