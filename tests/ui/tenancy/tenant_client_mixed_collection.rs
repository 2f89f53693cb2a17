use entity_client::tenant::TenantHole;
use entity_client::{Client, Collection, Entity};

// A collection whose members are not all tenant entities: neither the
// plain client nor a tenant client queries it, and the advice names
// `cross_tenant()`, which does.
#[derive(Entity, Debug, PartialEq)]
#[entity(schema = "crm", tenant = tenant_id)]
#[pk(tenant_id, id)]
#[index(by_team(gsi = "gsi1", collection = "team", pk(tenant_id, team), sk(id)))]
struct Member {
    tenant_id: String,
    id: String,
    team: String,
}

#[derive(Entity, Debug, PartialEq)]
#[entity(schema = "crm")]
#[pk(name)]
#[index(by_team(gsi = "gsi1", collection = "team", pk(tenant_id, team), sk(name)))]
struct Role {
    tenant_id: String,
    name: String,
    team: String,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "team", pk(tenant_id: String, team: String))]
enum Team {
    Members(Member),
    Roles(Role),
}

async fn query(client: Client) {
    let _ = client.tenant("t-001").query(Team::query(TenantHole, "core")).all().await;
}

fn main() {}
