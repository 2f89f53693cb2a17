use entity_core::expr::Update;
use entity_core::Entity;

// Under the default `policy = "preserve"`, an index's composites change only
// together, through the group setter: one alone would leave a stale key.
#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(id)]
#[index(by_rank(gsi = "gsi1", pk(team), sk(rank, level)))]
struct Player {
    id: String,
    team: String,
    rank: u32,
    level: Option<u8>,
}

fn main() {
    let f = Player::fields();
    let _ = Update::<Player>::new().set(f.level, 3u8);
}
