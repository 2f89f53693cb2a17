use entity_core::Entity;

#[derive(Entity)]
#[pk(tenant_id, user_id, number)]
struct User {
    tenant_id: u32,
    user_id: u64,
}

fn main() {}
