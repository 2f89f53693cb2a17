use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(sk, owner)))]
struct Task {
    task_id: String,
    project_id: String,
    sk: String,
    owner: String,
}

fn main() {}
