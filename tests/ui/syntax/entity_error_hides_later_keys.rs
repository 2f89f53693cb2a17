use entity_core::Entity;

// `casing` is bad; `schema` after it must still be read.
#[derive(Entity)]
#[entity(casing = "title", schema = "myapp")]
#[pk(task_id)]
struct Task {
    task_id: String,
}

fn main() {}
