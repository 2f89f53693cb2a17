use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "TASK#{task_id}", casing = "upper")]
struct Task {
    task_id: String,
}

fn main() {}
