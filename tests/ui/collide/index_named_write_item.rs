use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(write_item(gsi = "gsi1", pk(project_id)))]
struct Task {
    task_id: String,
    project_id: String,
}

fn main() {}
