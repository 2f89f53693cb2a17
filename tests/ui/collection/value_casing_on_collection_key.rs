use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task")]
#[pk(task_id)]
#[index(tenant_members(gsi = "gsi1", collection = "tenantMembers", pk(tenant_id, value_casing = "lower"), sk(task_id)))]
struct Task {
    task_id: String,
    tenant_id: String,
}

fn main() {}
