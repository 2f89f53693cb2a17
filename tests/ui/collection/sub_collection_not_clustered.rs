use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task")]
#[pk(task_id)]
#[index(assignments(gsi = "gsi2", collection = ["contributions", "assignments"], pk(employee_id), sk(project_id)))]
struct Task {
    task_id: String,
    employee_id: String,
    project_id: String,
}

fn main() {}
