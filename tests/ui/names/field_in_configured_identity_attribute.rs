use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", identity_attribute = "__edb_e__")]
#[pk(task_id)]
struct Task {
    task_id: String,
    #[entity(rename = "__edb_e__")]
    kind: String,
}

fn main() {}
