use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "my#app")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
