use entity_core::{Entity, EpochSeconds};

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(session_id)]
#[index(by_user(gsi = "gsi1", pk(user), projection = keys_only))]
struct Session {
    session_id: String,
    user: String,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

fn main() {}
