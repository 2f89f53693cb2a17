use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk(priority)]
struct Task {
    task_id: String,
    priority: u8,
}

fn main() {
    let _ = Task::primary("t").priority().gt("high");
}
