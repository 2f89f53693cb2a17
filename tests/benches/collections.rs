//! Decoding a mixed page of 1,000 items of a three-member collection into
//! the union, versus 1,000 items of one entity (target: at most 1.3x).
//!
//! Rounds alternate between the two, inputs are cloned outside the timed
//! region, and medians are compared. `cargo bench -p entity-tests --bench collections`.

use entity_client::{Collection, Entity, Item};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Employee")]
#[pk(employee_id)]
#[sk()]
#[index(team(
    gsi = "gsi1",
    collection = "team",
    clustered,
    pk(tenant_id),
    sk(department, employee_id)
))]
struct Employee {
    employee_id: String,
    tenant_id: String,
    department: String,
    name: String,
    level: u8,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Task")]
#[pk(task_id)]
#[sk()]
#[index(team(
    gsi = "gsi1",
    collection = "team",
    clustered,
    pk(tenant_id),
    sk(project_id, task_id)
))]
struct Task {
    task_id: String,
    tenant_id: String,
    project_id: String,
    title: String,
    priority: u8,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench", name = "Device")]
#[pk(device_id)]
#[sk()]
#[index(team(
    gsi = "gsi1",
    collection = "team",
    clustered,
    pk(tenant_id),
    sk(kind, device_id)
))]
struct Device {
    device_id: String,
    tenant_id: String,
    kind: String,
    label: String,
    age: u8,
}

#[derive(Collection, Debug)]
#[collection(name = "team", pk(tenant_id: String))]
enum Team {
    Employees(Employee),
    Tasks(Task),
    Devices(Device),
}

fn employee(i: usize) -> Employee {
    Employee {
        employee_id: format!("e-{i:05}"),
        tenant_id: "t-acme".into(),
        department: "engineering".into(),
        name: format!("Employee {i}"),
        level: (i % 7) as u8,
    }
}

fn mixed(i: usize) -> Item {
    match i % 3 {
        0 => employee(i).to_item(),
        1 => Task {
            task_id: format!("t-{i:05}"),
            tenant_id: "t-acme".into(),
            project_id: "proj-alpha".into(),
            title: format!("Task {i}"),
            priority: (i % 5) as u8,
        }
        .to_item(),
        _ => Device {
            device_id: format!("d-{i:05}"),
            tenant_id: "t-acme".into(),
            kind: "laptop".into(),
            label: format!("Device {i}"),
            age: (i % 4) as u8,
        }
        .to_item(),
    }
    .expect("item")
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let quick = entity_tests::bench::quick();
    let rounds = if quick { 3 } else { 201 };
    let single: Vec<Item> = (0..1000)
        .map(|i| employee(i).to_item().expect("item"))
        .collect();
    let union: Vec<Item> = (0..1000).map(mixed).collect();
    let (mut entity_times, mut union_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let input = single.clone();
        let t = Instant::now();
        for item in input {
            black_box(Employee::from_item(item).expect("decode"));
        }
        entity_times.push(t.elapsed());

        let input = union.clone();
        let t = Instant::now();
        for item in input {
            black_box(Team::decode(item).expect("decode").expect("a member"));
        }
        union_times.push(t.elapsed());
    }
    let (entity, union) = (median(entity_times), median(union_times));
    let ratio = union.as_secs_f64() / entity.as_secs_f64();
    println!("== decoding 1,000 items, median of {rounds} alternating rounds ==");
    println!("one entity {entity:>10.1?} | three-member collection union {union:>10.1?}");
    let verdict = if quick {
        "(quick run, not judged)"
    } else if ratio <= 1.3 {
        "PASS"
    } else {
        "MISS"
    };
    println!("collection decode: union/entity = {ratio:.2}x (target <= 1.3x) {verdict}");
}
