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
    // `priority` comes after `status` in the sort key: `.status().eq(..)` first.
    let _ = Issue::by_project("p1").priority();
}
