use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "USER#{tenant_id}{user_id}")]
struct User {
    tenant_id: String,
    user_id: String,
}

fn main() {}
