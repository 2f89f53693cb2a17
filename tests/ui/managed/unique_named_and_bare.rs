use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(email, handle(tenant_id, handle)))]
#[pk(id)]
struct Customer {
    id: String,
    tenant_id: String,
    email: String,
    handle: String,
}

fn main() {}
