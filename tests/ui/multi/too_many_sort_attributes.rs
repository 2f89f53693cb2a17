use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[index(by_place(gsi = "gsi3", multi_attribute, pk(tenant), sk(a, b, c, d, e)))]
struct Order {
    id: String,
    tenant: String,
    a: String,
    b: String,
    c: String,
    d: u32,
    e: u32,
}

fn main() {}
