use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: String,
    title: String,
}

fn main() {
    let f = Task::fields();
    let _ = Update::<Task>::new().set(f.task_id, "t-2");
}
