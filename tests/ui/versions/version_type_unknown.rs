use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", version_type = "binary")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
