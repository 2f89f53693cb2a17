use entity_core::Entity;

#[derive(serde::Serialize, serde::Deserialize)]
struct Body {
    text: String,
}

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    #[entity(serde, compress)]
    body: Body,
}

fn main() {}
