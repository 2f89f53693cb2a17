use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(compress(max = 4096))]
    body: String,
}

fn main() {}
