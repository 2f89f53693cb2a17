use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[index(by_region(gsi = "gsi3", multi_attribute, pk(tenant), sk(region, status)))]
struct Order {
    id: String,
    tenant: String,
    region: String,
    status: String,
}

fn main() {
    let _ = Order::by_region("t1").status().eq("open");
}
