use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_owner(gsi = "gsi1", pk(owner)))]
struct Task {
    task_id: String,
    owner: Option<Option<String>>,
}

fn main() {}
