use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", soft_delete(keep_uniques))]
#[pk(id)]
struct Doc {
    id: String,
}

fn main() {}
