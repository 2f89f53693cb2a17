use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", version_attribute = "rev")]
#[pk(task_id, attr = "rev")]
struct Task {
    task_id: String,
}

fn main() {}
