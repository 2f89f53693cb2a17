use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(id)]
#[index(by_rank(gsi = "gsi1", policy = "sprase", pk(team), sk(rank)))]
struct Player {
    id: String,
    team: String,
    rank: u32,
}

fn main() {}
