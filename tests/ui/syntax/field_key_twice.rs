use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: String,
    #[entity(rename = "a", rename = "b")]
    title: String,
}

fn main() {}
