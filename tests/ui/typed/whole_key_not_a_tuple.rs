use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(project_id)]
#[sk(priority, status)]
struct Task {
    project_id: String,
    priority: u8,
    status: String,
}

fn main() {
    // The whole sort key is a tuple of every composite's value.
    let _ = Task::primary("p").sk().gte(3u8);
}
