use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", soft_delete(expire_after = "30d"))]
#[pk(id)]
struct Doc {
    id: String,
}

fn main() {}
