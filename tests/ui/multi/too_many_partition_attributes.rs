use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop")]
#[pk(id)]
#[index(by_place(gsi = "gsi3", multi_attribute, pk(a, b, c, d, e)))]
struct Order {
    id: String,
    a: String,
    b: String,
    c: String,
    d: String,
    e: String,
}

fn main() {}
