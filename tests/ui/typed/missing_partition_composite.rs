use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(tenant_id, user_id)]
struct User {
    tenant_id: String,
    user_id: String,
}

fn main() {
    let _ = User::primary("t1");
}
