use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(employee_id)]
#[index(members(gsi = "gsi1", collection = "team", pk(team_id), sk(employee_id), projection = include(name)))]
struct Employee {
    employee_id: String,
    team_id: String,
    name: String,
}

fn main() {}
