use entity_core::{Collection, Entity};

#[derive(Entity)]
#[entity(schema = "app", rename_all = "camelCase")]
#[pk(alpha_id)]
#[index(group(gsi = "gsi1", collection = "grp", clustered, pk(tenant_id), sk()))]
struct Alpha {
    alpha_id: String,
    tenant_id: String,
}

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(beta_id)]
#[index(group(gsi = "gsi1", collection = "grp", clustered, pk(tenant_id), sk()))]
struct Beta {
    beta_id: String,
    tenant_id: String,
}

#[derive(Collection)]
#[collection(name = "grp", pk(tenant_id: String))]
enum Grp {
    Alphas(Alpha),
    Betas(Beta),
}

fn main() {}
