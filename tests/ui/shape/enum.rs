use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
enum Task {
    Open { task_id: String },
}

fn main() {}
