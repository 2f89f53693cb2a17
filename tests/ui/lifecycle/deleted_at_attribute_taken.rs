use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app", soft_delete)]
#[pk(id)]
struct Doc {
    id: String,
    #[entity(rename = "__deleted_at")]
    removed: Option<entity_core::EpochMillis>,
}

fn main() {}
