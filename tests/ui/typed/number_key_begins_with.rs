use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(user_id)]
#[sk(seq, number)]
struct Event {
    user_id: String,
    seq: u64,
}

fn main() {
    // DynamoDB compares a number sort key as a number: no `begins_with`.
    let _ = Event::primary("u1").seq().begins_with(1u64);
}
