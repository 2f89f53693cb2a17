//! Item conversion: every key, the identity attributes, omitted `None`s,
//! sets, nested serde types, and typed errors instead of panics.

use aws_sdk_dynamodb::types::AttributeValue as Av;
use entity_core::{AttributeError, DecodeError, Entity, Item};
use entity_tests::{ChecklistItem, Order, Status, Task, UserId, UserProfile};

fn task() -> Task {
    Task {
        task_id: "t-001".into(),
        project_id: "proj-alpha".into(),
        employee_id: "emp-alice".into(),
        priority: 3,
        status: Status::InProgress,
        title: "Write the derive".into(),
        tags: ["rust".to_owned(), "dynamodb".to_owned()].into(),
        estimate: Some(2.5),
        checklist: vec![ChecklistItem {
            text: "tests".into(),
            done: false,
        }],
    }
}

fn s(text: &str) -> Av {
    Av::S(text.into())
}

#[test]
fn item_holds_fields_keys_and_identity() {
    let item = task().to_item().unwrap();
    assert_eq!(item["pk"], s("$myapp#v1#task#taskid_t-001"));
    assert_eq!(item["sk"], s("$myapp#v1#task"));
    assert_eq!(item["gsi1pk"], s("$myapp#v1#task#projectid_proj-alpha"));
    assert_eq!(
        item["gsi1sk"],
        s("$myapp#v1#task#priority_003#status_InProgress")
    );
    assert_eq!(item["gsi2pk"], s("$myapp#v1#task#employeeid_emp-alice"));
    assert_eq!(item["gsi2sk"], s("$myapp#v1#task#priority_003"));
    assert_eq!(item["__entity"], s("Task"));
    assert_eq!(item["__version"], Av::N("1".into()));
    assert_eq!(item["taskId"], s("t-001"));
    assert_eq!(item["priority"], Av::N("3".into()));
    assert_eq!(item["status"], s("InProgress"));
    assert_eq!(item["estimate"], Av::N("2.5".into()));
    let Av::Ss(mut tags) = item["tags"].clone() else {
        panic!("tags should be a string set: {:?}", item["tags"])
    };
    tags.sort();
    assert_eq!(tags, ["dynamodb", "rust"]);
    let Av::L(list) = &item["checklist"] else {
        panic!("checklist should be a list")
    };
    let Av::M(first) = &list[0] else {
        panic!("checklist items should be maps")
    };
    assert_eq!(first["text"], s("tests"));
    assert_eq!(item.len(), 9 + 6 + 2);
}

#[test]
fn round_trips() {
    let t = task();
    assert_eq!(Task::from_item(t.to_item().unwrap()).unwrap(), t);
    let p = UserProfile {
        user_id: UserId("u1".into()),
        email: "a@b.test".into(),
        bio: Some("hi".into()),
    };
    assert_eq!(UserProfile::from_item(p.to_item().unwrap()).unwrap(), p);
}

#[test]
fn none_and_empty_sets_are_omitted_not_null() {
    let mut t = task();
    t.estimate = None;
    t.tags.clear();
    let item = t.to_item().unwrap();
    assert!(!item.contains_key("estimate"));
    assert!(!item.contains_key("tags"), "DynamoDB rejects empty sets");
    assert_eq!(Task::from_item(item).unwrap(), t);
}

#[test]
fn an_item_of_another_entity_is_a_typed_error() {
    let order = Order {
        user_id: "u".into(),
        day: "d".into(),
        order_id: "o".into(),
        total_cents: -5,
    };
    let err = Task::from_item(order.to_item().unwrap()).unwrap_err();
    assert_eq!(
        err,
        DecodeError::WrongEntity {
            expected: "Task",
            attribute: "__entity",
            found: Some("Order".into())
        }
    );
    let err = Task::from_item(Item::new()).unwrap_err();
    assert!(err.to_string().contains("is missing"), "{err}");
}

#[test]
fn missing_and_mistyped_attributes_name_entity_and_attribute() {
    let mut item = task().to_item().unwrap();
    item.remove("title");
    let err = Task::from_item(item).unwrap_err();
    assert_eq!((err.entity(), err.attribute()), ("Task", "title"));
    assert!(matches!(
        err,
        DecodeError::Attribute {
            source: AttributeError::Missing,
            ..
        }
    ));

    let mut item = task().to_item().unwrap();
    item.insert("priority".into(), s("high"));
    let err = Task::from_item(item).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Task.priority: expected DynamoDB type N, found S"
    );

    let mut item = task().to_item().unwrap();
    item.insert("priority".into(), Av::N("300".into()));
    let err = Task::from_item(item).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Task.priority: number `300` does not fit u8"),
        "{err}"
    );

    let mut item = task().to_item().unwrap();
    item.insert("status".into(), s("Closed"));
    let err = Task::from_item(item).unwrap_err();
    assert!(err.to_string().contains("expected one of"), "{err}");

    let mut item = task().to_item().unwrap();
    item.insert("checklist".into(), s("not a list"));
    let err = Task::from_item(item).unwrap_err();
    assert_eq!(err.attribute(), "checklist");
}

#[test]
fn nulls_read_as_none() {
    let mut item = task().to_item().unwrap();
    item.insert("estimate".into(), Av::Null(true));
    assert_eq!(Task::from_item(item).unwrap().estimate, None);
}

#[test]
fn non_finite_numbers_are_refused_before_sending() {
    let mut t = task();
    t.estimate = Some(f64::NAN);
    let err = t.to_item().unwrap_err();
    assert_eq!((err.entity, err.attribute), ("Task", "estimate"));
}

#[test]
fn sets_of_numbers_use_ns() {
    use entity_core::{FromAttribute, ToAttribute};
    let set: std::collections::HashSet<i64> = [-1, 2].into();
    let Some(Av::Ns(mut members)) = set.to_attribute().unwrap() else {
        panic!("expected NS")
    };
    members.sort();
    assert_eq!(members, ["-1", "2"]);
    let back = std::collections::HashSet::<i64>::from_attribute(Av::Ns(members)).unwrap();
    assert_eq!(back, set);
}
