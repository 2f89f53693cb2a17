use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk(score)]
struct Task {
    task_id: String,
    score: f64,
}

fn main() {}
