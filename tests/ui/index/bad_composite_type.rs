use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_labels(gsi = "gsi1", pk(labels)))]
struct Task {
    task_id: String,
    labels: Vec<String>,
}

fn main() {}
