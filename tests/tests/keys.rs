//! Key composition, parsing and type guards, for seed 002's default format
//! and the custom formats existing tables use (seeds 000, 001, 004).

use chrono::TimeZone;
use entity_core::Entity as _;
use entity_tests::{Employee, Entry, Order, Status, Task, TeamMember, UserId, UserProfile};

fn alice() -> Employee {
    Employee {
        employee_id: "emp-alice".into(),
        tenant_id: "t-acme".into(),
        department: "engineering".into(),
        hire_date: "2024-01-15".into(),
        email: "alice@acme.test".into(),
        name: "Alice".into(),
    }
}

#[test]
fn default_format_is_seed_002s() {
    let e = alice();
    assert_eq!(e.pk(), "$myapp#v1#employee#employeeid_emp-alice");
    assert_eq!(e.sk(), "$myapp#v1#employee");
    assert_eq!(e.by_tenant_pk(), "$myapp#v1#employee#tenantid_t-acme");
    assert_eq!(
        e.by_tenant_sk(),
        "$myapp#v1#employee#department_engineering#hiredate_2024-01-15"
    );
    assert_eq!(e.by_email_pk(), "$myapp#v1#employee#email_alice@acme.test");
}

#[test]
fn values_keep_their_case_while_structure_is_cased() {
    let mut e = alice();
    e.employee_id = "Emp-Alice".into();
    assert_eq!(e.pk(), "$myapp#v1#employee#employeeid_Emp-Alice");
    let t = Entry {
        account: "Acc-1".into(),
        at: chrono::Utc.timestamp_opt(0, 0).unwrap(),
        delta: -5,
    };
    assert_eq!(t.pk(), "$LEDGER#V1#ENTRY#ACCOUNT_Acc-1");
    assert_eq!(
        t.sk(),
        "$LEDGER#V1#ENTRY#AT_1970-01-01T00:00:00.000000000Z#DELTA_-9999999994"
    );
}

#[test]
fn custom_formats_match_existing_tables() {
    let p = UserProfile {
        user_id: UserId("123".into()),
        email: "a@b.test".into(),
        bio: None,
    };
    assert_eq!(p.pk(), "USER#123");
    assert_eq!(p.sk(), "PROFILE");
    assert_eq!(p.by_email_pk(), "user#email");
    assert_eq!(p.by_email_sk(), "a@b.test");
    let o = Order {
        user_id: "123".into(),
        day: "2024-01-15".into(),
        order_id: "abc".into(),
        total_cents: 1,
    };
    assert_eq!(o.pk(), "USER#123");
    assert_eq!(o.sk(), "ORDER#2024-01-15#abc");
    let m = TeamMember {
        tenant_code: "tenant001".into(),
        team_id: "eng".into(),
        user_id: "u1".into(),
    };
    assert_eq!(m.pk(), "PRODUCT#tenant001");
    assert_eq!(m.sk(), "team#eng#member#u1");
}

#[test]
fn composers_from_arguments_match_instance_composers() {
    let e = alice();
    assert_eq!(Employee::pk_of("emp-alice"), e.pk());
    assert_eq!(
        Employee::by_tenant_sk_of("engineering", &e.hire_date),
        e.by_tenant_sk()
    );
    let key = Employee::key("emp-alice");
    assert_eq!(key, e.primary_key());
    assert_eq!(
        Order::key("123", "2024-01-15", "abc").sk,
        Some(("sk", "ORDER#2024-01-15#abc".to_owned()))
    );
}

#[test]
fn separators_in_values_are_escaped_and_never_collide() {
    let a = Order {
        user_id: "u".into(),
        day: "a#b".into(),
        order_id: "c".into(),
        total_cents: 0,
    };
    let b = Order {
        user_id: "u".into(),
        day: "a".into(),
        order_id: "b#c".into(),
        total_cents: 0,
    };
    assert_eq!(a.sk(), "ORDER#a%23b#c");
    assert_eq!(b.sk(), "ORDER#a#b%23c");
    assert_ne!(a.sk(), b.sk());
    assert_eq!(
        Order::parse_sk(&a.sk()).unwrap(),
        ("a#b".to_owned(), "c".to_owned())
    );
    assert_eq!(
        Order::parse_sk(&b.sk()).unwrap(),
        ("a".to_owned(), "b#c".to_owned())
    );
    let percent = Order {
        user_id: "u".into(),
        day: "100%23".into(),
        order_id: "x".into(),
        total_cents: 0,
    };
    assert_eq!(Order::parse_sk(&percent.sk()).unwrap().0, "100%23");
}

#[test]
fn every_key_parses_back_into_its_composites() {
    let t = Task {
        task_id: "t-001".into(),
        project_id: "proj-alpha".into(),
        employee_id: "emp-alice".into(),
        priority: 7,
        status: Status::Done,
        title: "Ship".into(),
        tags: Default::default(),
        estimate: None,
        checklist: vec![],
    };
    assert_eq!(Task::parse_pk(&t.pk()).unwrap(), ("t-001".to_owned(),));
    assert_eq!(Task::parse_sk(&t.sk()).unwrap(), ());
    assert_eq!(t.by_project_sk(), "$myapp#v1#task#priority_007#status_done");
    assert_eq!(
        Task::parse_by_project_sk(&t.by_project_sk()).unwrap(),
        (7, Status::Done)
    );
    assert_eq!(
        Task::parse_by_assignee_pk(&t.by_assignee_pk()).unwrap(),
        ("emp-alice".to_owned(),)
    );
    let at = chrono::Utc
        .with_ymd_and_hms(2024, 1, 15, 10, 30, 0)
        .unwrap();
    let e = Entry {
        account: "a".into(),
        at,
        delta: i32::MIN,
    };
    assert_eq!(Entry::parse_sk(&e.sk()).unwrap(), (at, i32::MIN));
    assert_eq!(
        Entry::parse_by_delta_sk(&e.by_delta_sk()).unwrap(),
        (i32::MIN,)
    );
}

#[test]
fn guards_tell_entities_apart() {
    let p = UserProfile {
        user_id: UserId("123".into()),
        email: "a@b.test".into(),
        bio: None,
    };
    let o = Order {
        user_id: "123".into(),
        day: "2024-01-15".into(),
        order_id: "abc".into(),
        total_cents: 1,
    };
    assert!(UserProfile::is_sk(&p.sk()));
    assert!(!UserProfile::is_sk(&o.sk()));
    assert!(Order::is_sk(&o.sk()));
    assert!(!Order::is_sk(&p.sk()));
    assert!(!Order::is_sk("ORDER#only-one-part"));
    assert!(
        !Order::is_sk("ORDER#a#b#c"),
        "a raw `#` in a value is not ours"
    );
    assert!(Employee::is_pk("$myapp#v1#employee#employeeid_x"));
    assert!(!Employee::is_pk("$myapp#v1#task#taskid_x"));
}

#[test]
fn parse_errors_say_what_did_not_match() {
    let err = Task::parse_by_project_sk("$myapp#v1#task#priority_7#status_done").unwrap_err();
    assert_eq!(err.entity, "Task");
    assert_eq!(err.which, "by_project sk");
    assert!(err.reason.contains("expected 3 digits"), "{err}");
    let err = Task::parse_by_project_sk("$myapp#v1#task#priority_007#status_Closed").unwrap_err();
    assert!(
        err.reason
            .contains("expected one of: Open, InProgress, done"),
        "{err}"
    );
    let err = Task::parse_pk("$myapp#v1#task#taskid_a#extra").unwrap_err();
    assert!(err.reason.contains("trailing"), "{err}");
}

#[test]
fn numbers_sort_as_values_including_negatives() {
    let mut deltas = vec![i32::MIN, -1000, -5, -1, 0, 1, 5, 1000, i32::MAX];
    let keys: Vec<String> = deltas.iter().map(|d| Entry::by_delta_sk_of(*d)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    deltas.reverse();
    assert!(
        Entry::by_delta_sk_of(-5) < Entry::by_delta_sk_of(4),
        "ElectroDB's 0000-5 sorts after 4"
    );
}

#[test]
fn model_describes_keys_and_indexes() {
    let model = Task::MODEL;
    assert_eq!(model.name, "Task");
    assert_eq!(model.schema, "myapp");
    assert_eq!(model.primary.pk.template, "$myapp#v1#task#taskid_{task_id}");
    let by_project = model.index("by_project").unwrap();
    assert_eq!(by_project.index_name, Some("gsi1"));
    assert_eq!(by_project.sk.unwrap().composites, ["priority", "status"]);
    assert_eq!(
        model.key_attributes(),
        ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"]
    );
    let lsi = Entry::MODEL.index("by_delta").unwrap();
    assert_eq!(lsi.kind, entity_core::IndexKind::Local);
    assert_eq!(lsi.pk.attribute, "pk");
}

/// A field named with a raw identifier is `{type}` in a custom format.
#[derive(entity_core::Entity, Debug, Clone, PartialEq)]
#[pk(format = "KIND#{type}")]
#[sk(format = "ITEM#{id}")]
struct Kinded {
    r#type: String,
    id: u32,
}

#[test]
fn raw_identifier_fields_compose_in_custom_formats() {
    let k = Kinded {
        r#type: "invoice".into(),
        id: 7,
    };
    assert_eq!(k.pk(), "KIND#invoice");
    assert_eq!(
        Kinded::parse_pk("KIND#invoice").unwrap(),
        ("invoice".to_owned(),)
    );
    assert_eq!(Kinded::from_item(k.to_item().unwrap()).unwrap(), k);
}

/// ... or `{r#type}`, as the field is written: the `#` of `r#` separates
/// no segments.
#[derive(entity_core::Entity, Debug, Clone, PartialEq)]
#[pk(format = "KIND#{r#type}")]
#[sk(format = "ITEM#{id}#{r#type:unpadded}")]
struct RawKinded {
    r#type: u32,
    id: u32,
}

#[test]
fn raw_identifiers_are_spelled_raw_in_custom_formats_too() {
    let k = RawKinded { r#type: 7, id: 3 };
    assert_eq!(k.pk(), "KIND#0000000007");
    assert_eq!(k.sk(), "ITEM#0000000003#7");
    assert_eq!(RawKinded::parse_sk("ITEM#0000000003#7").unwrap(), (3, 7));
    assert_eq!(RawKinded::from_item(k.to_item().unwrap()).unwrap(), k);
}

/// `wide_int` accepts a `u128` composite knowingly: its key text holds all
/// 39 digits.
#[derive(entity_core::Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp")]
#[pk(serial)]
struct Device {
    #[entity(wide_int)]
    serial: u128,
}

#[test]
fn wide_int_composites_compose_every_digit() {
    let d = Device { serial: u128::MAX };
    assert_eq!(d.pk(), format!("$myapp#v1#device#serial_{}", u128::MAX));
    assert_eq!(Device::parse_pk(&d.pk()).unwrap(), (u128::MAX,));
}

/// Group setters take what the key constructors take: `&str` or `String`
/// for a `String` composite.
#[derive(entity_core::Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp")]
#[pk(doc_id)]
#[index(by_folder(gsi = "gsi1", pk(folder)))]
struct Doc {
    doc_id: String,
    folder: String,
}

#[test]
fn group_setters_take_str_and_string() {
    let from_str = Doc::set_folder("f2");
    let from_string = Doc::set_folder(String::from("f2"));
    assert_eq!(format!("{from_str:?}"), format!("{from_string:?}"));
    assert!(format!("{from_str:?}").contains("$myapp#v1#doc#folder_f2"));
}

/// The generated code and the client read the identity attributes from one
/// definition in `entity-core`.
#[test]
fn identity_attributes_come_from_entity_core() {
    assert_eq!(
        Doc::MODEL.identity_attribute,
        entity_core::__private::IDENTITY_ATTRIBUTE
    );
    assert_eq!(
        Doc::MODEL.version_attribute,
        entity_core::__private::VERSION_ATTRIBUTE
    );
    let item = Doc {
        doc_id: "d".into(),
        folder: "f".into(),
    }
    .to_item()
    .unwrap();
    assert!(item.contains_key(entity_core::__private::IDENTITY_ATTRIBUTE));
}
