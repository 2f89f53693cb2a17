use entity_core::Entity;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Owner {
    id: String,
}

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(owner)]
struct Task {
    owner: Owner,
}

fn main() {}
