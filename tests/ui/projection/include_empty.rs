use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(task_id)]
#[index(by_owner(gsi = "gsi1", pk(owner), projection = include()))]
struct Task {
    task_id: String,
    owner: String,
    title: String,
}

fn main() {}
