use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
#[pk(tenant_id)]
struct User {
    user_id: String,
    tenant_id: String,
}

fn main() {}
