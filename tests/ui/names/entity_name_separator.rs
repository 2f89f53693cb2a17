use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", name = "Ta#sk")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
