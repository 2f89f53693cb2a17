use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(project_id)]
#[index(by_priority(lsi = "lsi1", sk(priority)))]
struct Task {
    project_id: String,
    priority: u8,
}

fn main() {}
