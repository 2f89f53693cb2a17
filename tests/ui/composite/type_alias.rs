use entity_core::Entity;

type TaskId = f32;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: TaskId,
}

fn main() {}
