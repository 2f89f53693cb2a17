use entity_core::{Entity, EpochSeconds};

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(session_id)]
struct Session {
    session_id: String,
    #[entity(ttl, encrypt)]
    expires_at: Option<EpochSeconds>,
}

fn main() {}
