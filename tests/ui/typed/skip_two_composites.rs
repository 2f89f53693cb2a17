use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(issue_id)]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(status, priority, due)))]
struct Issue {
    issue_id: String,
    project_id: String,
    status: String,
    priority: u8,
    due: u32,
}

fn main() {
    // A range on `due` needs `status` and `priority` fixed first.
    let _ = Issue::by_project("p1").status().eq("open").due().gt(20240101u32);
}
