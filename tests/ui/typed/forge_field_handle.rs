use entity_core::expr::{Attr, Plain};
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", pk(project_id)))]
struct Task {
    task_id: String,
    project_id: String,
}

fn main() {
    // A settable handle on an index key attribute would let an update
    // change the key without its group: handles come from `Task::fields()`.
    let _forged: Attr<Task, String, Plain> = Attr::new("gsi1pk");
}
