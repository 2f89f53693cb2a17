use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: String,
    #[entity(rename = "task#title")]
    title: String,
}

fn main() {}
