use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", identity_attribute = "")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
