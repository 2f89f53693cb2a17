use entity_core::{Entity, KeyPart};

#[derive(KeyPart)]
enum Status {
    Open,
    Done,
}

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk(status, value_casing = "lower")]
struct Task {
    task_id: String,
    status: Status,
}

fn main() {}
