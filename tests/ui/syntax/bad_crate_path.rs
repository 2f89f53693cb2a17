use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", crate = "entity core")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
