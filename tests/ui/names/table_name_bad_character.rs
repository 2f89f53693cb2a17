use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", table = "my/table")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
