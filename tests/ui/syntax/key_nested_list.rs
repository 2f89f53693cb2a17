use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(ids(task_id))]
struct Task {
    task_id: String,
}

fn main() {}
