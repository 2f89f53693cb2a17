use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(member_id)]
#[sk()]
#[index(team(gsi = "gsi1", collection = "team", pk(team_id, shards = 10), sk(member_id)))]
struct Member {
    member_id: String,
    team_id: String,
}

fn main() {}
