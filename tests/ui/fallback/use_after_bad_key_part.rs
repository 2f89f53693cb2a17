use entity_core::{Entity, KeyPart};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
enum Status {
    Open(u8),
    Done,
}

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk(status)]
struct Task {
    task_id: String,
    status: Status,
}

fn main() {
    let _key = Task::key("t1", Status::Done);
}
