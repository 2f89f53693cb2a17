use entity_core::Entity;

// The table's partition key is also every local index's: an item must have
// it, so none of its composites can be optional.
#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(tenant)]
#[sk(ticket_id)]
#[index(by_closed(lsi = "lsi1", sk(closed_at)))]
struct Ticket {
    tenant: Option<String>,
    ticket_id: String,
    closed_at: Option<u64>,
}

fn main() {}
