use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", rename_all = "camelcase")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
