use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(self::task_id)]
struct Task {
    task_id: String,
}

fn main() {}
