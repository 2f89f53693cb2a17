use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp", casing = "title")]
#[pk(task_id)]
#[sk()]
#[index(by_project(gsi = "gsi1", pk(project_id), sk(priority)))]
struct Task {
    task_id: String,
    project_id: String,
    priority: u8,
    title: String,
}

fn main() {
    let task = Task { task_id: "t1".into(), project_id: "p".into(), priority: 1, title: "x".into() };
    let _key = Task::key("t1");
    let _pk: String = task.pk();
    let _query = Task::by_project("p").priority().gt(1u8);
    let _title = Task::fields().title;
    let _model = Task::MODEL;
    let _item = task.to_item();
}
