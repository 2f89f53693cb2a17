use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk(created)]
struct Task {
    task_id: String,
    created: std::time::SystemTime,
}

fn main() {}
