use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id, attr = "__entity")]
struct Task {
    task_id: String,
}

fn main() {}
