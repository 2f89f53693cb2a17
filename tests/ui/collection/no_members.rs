use entity_core::Collection;

#[derive(Collection)]
#[collection(name = "tenantMembers", pk(tenant_id: String))]
enum TenantMembers {}

fn main() {}
