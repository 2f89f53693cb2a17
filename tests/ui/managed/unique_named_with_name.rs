use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(handle(tenant_id, handle, name = "h")))]
#[pk(id)]
struct Customer {
    id: String,
    tenant_id: String,
    handle: String,
}

fn main() {}
