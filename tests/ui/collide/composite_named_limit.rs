use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk(limit)]
struct Task {
    task_id: String,
    limit: u32,
}

fn main() {}
