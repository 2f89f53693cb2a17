use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task", version = 2)]
#[pk(task_id)]
struct TaskV1 {
    task_id: String,
}

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task", version = 2, upgrade_from = TaskV1)]
#[pk(task_id)]
struct Task {
    task_id: String,
}

impl From<TaskV1> for Task {
    fn from(v1: TaskV1) -> Self {
        Task { task_id: v1.task_id }
    }
}

fn main() {}
