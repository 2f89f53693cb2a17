use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", pk(project_id)))]
#[index(by_project_pk(gsi = "gsi2", pk(owner)))]
struct Task {
    task_id: String,
    project_id: String,
    owner: String,
}

fn main() {}
