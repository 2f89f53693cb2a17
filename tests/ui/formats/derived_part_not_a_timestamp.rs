use entity_core::Entity;

#[derive(Entity)]
#[pk(format = "LOG#{tenant}#{created:month}")]
struct Log {
    tenant: String,
    created: String,
}

fn main() {}
