use entity_core::{Entity, KeyPart};

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(priority, status)))]
struct Task {
    task_id: String,
    project_id: String,
    priority: u8,
    status: Status,
}

#[derive(KeyPart)]
enum Status {
    Open,
}

fn main() {
    // `status` comes after `priority` in the sort key: it cannot be given first.
    let _ = Task::by_project("p").status().eq(Status::Open);
}
