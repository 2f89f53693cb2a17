use entity_core::{Collection, Entity};

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk()]
#[index(members(gsi = "gsi1", collection = "team", pk(team_id), sk(task_id)))]
struct Task {
    task_id: String,
    team_id: String,
}

#[derive(Collection)]
#[collection(name = "team", name = "squad", pk(team_id: String))]
enum Team {
    Tasks(Task),
}

fn main() {}
