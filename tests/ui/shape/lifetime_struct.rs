use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
struct Task<'a> {
    task_id: &'a str,
}

fn main() {}
