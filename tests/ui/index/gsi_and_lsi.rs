use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk()]
#[index(by_project(gsi = "gsi1", lsi = "lsi1", pk(project_id)))]
struct Task {
    task_id: String,
    project_id: String,
}

fn main() {}
