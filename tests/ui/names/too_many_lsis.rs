use entity_core::Entity;

#[derive(Entity)]
#[entity(schema = "myapp")]
#[pk(task_id)]
#[sk()]
#[index(by_l1(lsi = "lsi1", sk(l1)))]
#[index(by_l2(lsi = "lsi2", sk(l2)))]
#[index(by_l3(lsi = "lsi3", sk(l3)))]
#[index(by_l4(lsi = "lsi4", sk(l4)))]
#[index(by_l5(lsi = "lsi5", sk(l5)))]
#[index(by_l6(lsi = "lsi6", sk(l6)))]
struct Task {
    task_id: String,
    l1: String,
    l2: String,
    l3: String,
    l4: String,
    l5: String,
    l6: String,
}

fn main() {}
