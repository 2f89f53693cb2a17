use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(task_id)]
#[index(by_owner(gsi = "gsi1", pk(owner), projection = key_only))]
struct Task {
    task_id: String,
    owner: String,
}

fn main() {}
