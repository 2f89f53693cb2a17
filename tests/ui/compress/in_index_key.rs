use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(id)]
#[sk()]
#[index(by_title(gsi = "gsi1", pk(kind), sk(title)))]
struct Doc {
    id: String,
    kind: String,
    #[entity(compress)]
    title: String,
}

fn main() {}
