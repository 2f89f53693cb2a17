use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task")]
#[pk(task_id)]
#[index(tenant_members(gsi = "gsi1", collection = [], clustered, pk(tenant_id), sk()))]
struct Task {
    task_id: String,
    tenant_id: String,
}

fn main() {}
