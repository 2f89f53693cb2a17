use entity_core::{Collection, Entity};

#[derive(Entity)]
#[entity(schema = "myapp", name = "Employee")]
#[pk(employee_id)]
#[index(tenant_members(gsi = "gsi1", collection = "tenantMembers", clustered, pk(tenant_id), sk(department)))]
struct Employee {
    employee_id: String,
    tenant_id: String,
    department: String,
}

#[derive(Entity)]
#[entity(schema = "myapp", name = "Task", identity_attribute = "__edb_e__")]
#[pk(task_id)]
#[index(tenant_members(gsi = "gsi1", collection = "tenantMembers", clustered, pk(tenant_id), sk(project_id)))]
struct Task {
    task_id: String,
    tenant_id: String,
    project_id: String,
}

#[derive(Collection)]
#[collection(name = "tenantMembers", pk(tenant_id: String))]
enum TenantMembers {
    Employees(Employee),
    Tasks(Task),
}

fn main() {}
