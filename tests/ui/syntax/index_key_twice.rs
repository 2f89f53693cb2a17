use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", casing = "upper", pk(project_id), casing = "lower"))]
struct Task {
    task_id: String,
    project_id: String,
}

fn main() {}
