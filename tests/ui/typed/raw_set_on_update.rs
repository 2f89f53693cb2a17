use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {
    let _ = Update::<Task>::new().set_raw("pk", Default::default());
}
