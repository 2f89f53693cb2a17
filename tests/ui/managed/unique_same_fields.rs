use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "shop", unique(tenant_id, email), unique(email, tenant_id, case_insensitive))]
#[pk(id)]
struct Customer {
    id: String,
    tenant_id: String,
    email: String,
}

fn main() {}
