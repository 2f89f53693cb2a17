use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "TASK\u{10FFFF}#{task_id}")]
struct Task {
    task_id: String,
}

fn main() {}
