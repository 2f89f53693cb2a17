use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(status, status_eq)))]
struct Task {
    task_id: String,
    project_id: String,
    status: String,
    status_eq: String,
}

fn main() {}
