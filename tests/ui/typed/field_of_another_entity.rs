use entity_core::expr::Update;
use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: String,
    title: String,
}

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
struct User {
    user_id: String,
    name: String,
}

fn main() {
    let _ = Update::<Task>::new().set(User::fields().name, "x");
}
