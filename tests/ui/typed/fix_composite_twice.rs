use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(issue_id)]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(status, priority)))]
struct Issue {
    issue_id: String,
    project_id: String,
    status: String,
    priority: u8,
}

fn main() {
    // Each composite is fixed once.
    let _ = Issue::by_project("p1").status().eq("open").priority().eq(3).priority();
}
