use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(order_id)]
#[index(by_region(gsi = "gsi3", multi_attribute, pk(tenant_id, shards = 10), sk(status)))]
struct Order {
    order_id: String,
    tenant_id: String,
    status: String,
}

fn main() {}
