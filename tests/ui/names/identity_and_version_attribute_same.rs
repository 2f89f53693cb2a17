use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", identity_attribute = "kind", version_attribute = "kind")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
