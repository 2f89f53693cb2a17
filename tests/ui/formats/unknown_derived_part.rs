use chrono::{DateTime, Utc};
use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "LOG#{tenant}#{created_at:mnth}")]
struct Log {
    tenant: String,
    created_at: DateTime<Utc>,
}

fn main() {}
