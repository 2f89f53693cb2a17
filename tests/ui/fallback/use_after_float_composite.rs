use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(score)))]
struct Task {
    task_id: String,
    project_id: String,
    score: f64,
}

fn main() {
    let task = Task { task_id: "t1".into(), project_id: "p".into(), score: 1.0 };
    let _key = Task::key("t1");
    let _query = Task::by_project("p").build();
    let _item = task.to_item();
}
