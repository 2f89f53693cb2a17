use entity_core::{Collection, Entity};

#[derive(Entity)]
#[entity(schema = "myapp", name = "Employee")]
#[pk(employee_id)]
#[index(contributions(gsi = "gsi2", collection = "contributions", clustered, pk(employee_id), sk(department)))]
struct Employee {
    employee_id: String,
    department: String,
}

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task")]
#[pk(task_id)]
#[index(assignments(gsi = "gsi2", collection = ["contributions", "assignments"], clustered, pk(employee_id), sk(project_id)))]
struct Task {
    task_id: String,
    employee_id: String,
    project_id: String,
}

#[derive(Collection)]
#[collection(name = ["contributions", "assignments"], pk(employee_id: String))]
enum Assignments {
    Employees(Employee),
    Tasks(Task),
}

fn main() {}
