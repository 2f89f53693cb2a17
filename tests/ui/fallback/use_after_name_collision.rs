use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(key(gsi = "gsi1", pk(project_id)))]
#[index(by_owner(gsi = "gsi2", pk(owner)))]
struct Task {
    task_id: String,
    project_id: String,
    owner: String,
}

fn main() {
    let _key = Task::key("t1");
    let _query = Task::by_owner("o").build();
}
