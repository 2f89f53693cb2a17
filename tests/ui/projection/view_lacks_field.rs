use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "app")]
#[pk(task_id)]
#[index(by_owner(gsi = "gsi1", pk(owner), projection = include(title)))]
struct Task {
    task_id: String,
    owner: String,
    title: String,
    notes: String,
}

// A query of `by_owner` returns `TaskByOwnerView`, which holds what the
// index holds: the keys' composites and `title`, not `notes`.
fn notes(view: &TaskByOwnerView) -> &str {
    &view.notes
}

fn main() {}
