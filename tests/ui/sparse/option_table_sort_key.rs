use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(tenant)]
#[sk(ticket_id)]
struct Ticket {
    tenant: String,
    ticket_id: Option<String>,
}

fn main() {}
