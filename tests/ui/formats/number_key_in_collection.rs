use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task")]
#[pk(task_id)]
#[index(tenant_members(gsi = "gsi1", collection = "tenantMembers", clustered, pk(tenant_id, number), sk(project_id)))]
struct Task {
    task_id: String,
    tenant_id: u64,
    project_id: String,
}

fn main() {}
