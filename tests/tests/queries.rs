//! Typed index accessors build the right Query, with no server.

use entity_core::{Query, SortCondition};
use entity_tests::{Entry, Order, Status, Task, UserId, UserProfile};

fn sort<E>(q: &Query<E>) -> SortCondition {
    q.sort_condition().expect("a sort condition").1.clone()
}

#[test]
fn partition_only_query_uses_the_entity_prefix() {
    let q = Task::by_project("proj-alpha").build();
    assert_eq!(q.index_name(), Some("gsi1"));
    assert_eq!(
        q.partition_key(),
        ("gsi1pk", "$myapp#v1#task#projectid_proj-alpha")
    );
    assert_eq!(
        q.key_condition_expression(),
        "#pk = :pk AND begins_with(#sk, :sk1)"
    );
    assert_eq!(
        sort(&q),
        SortCondition::BeginsWith("$myapp#v1#task#priority_".into())
    );
    let names = q.expression_attribute_names();
    assert_eq!(
        (names["#pk"].as_str(), names["#sk"].as_str()),
        ("gsi1pk", "gsi1sk")
    );
    assert!(q.scan_index_forward());
    assert_eq!(q.get_limit(), None);
}

#[test]
fn primary_accessor_is_symmetric() {
    let q: Query<Order> = Order::primary("123").into();
    assert_eq!(q.index_name(), None);
    assert_eq!(q.partition_key(), ("pk", "USER#123"));
    assert_eq!(sort(&q), SortCondition::BeginsWith("ORDER#".into()));
    let q = Order::primary("123").day().eq("2024-01-15").build();
    assert_eq!(
        sort(&q),
        SortCondition::BeginsWith("ORDER#2024-01-15#".into())
    );
    let q = Order::primary("123")
        .day()
        .eq("2024-01-15")
        .order_id()
        .eq("abc")
        .build();
    assert_eq!(sort(&q), SortCondition::Eq("ORDER#2024-01-15#abc".into()));
    assert_eq!(q.key_condition_expression(), "#pk = :pk AND #sk = :sk1");
}

#[test]
fn prefixes_never_over_match() {
    // `priority_1` must not match `priority_10`: numbers are fixed width and a
    // fixed composite is followed by the separator.
    let q = Task::by_project("p").priority().eq(1).build();
    assert_eq!(
        sort(&q),
        SortCondition::BeginsWith("$myapp#v1#task#priority_001#status_".into())
    );
    let q = Order::primary("1").day().eq("2024-01-1").build();
    assert_eq!(
        sort(&q),
        SortCondition::BeginsWith("ORDER#2024-01-1#".into())
    );
}

#[test]
fn comparisons_on_the_next_composite_stay_in_range() {
    let q = Task::by_project("p").priority().gte(5);
    assert_eq!(
        sort(&q),
        SortCondition::Between(
            "$myapp#v1#task#priority_005".into(),
            format!("$myapp#v1#task#priority_{}", char::MAX)
        )
    );
    let q = Task::by_project("p").priority().between(2, 4);
    assert_eq!(
        sort(&q),
        SortCondition::Between(
            "$myapp#v1#task#priority_002".into(),
            format!("$myapp#v1#task#priority_004#{}", char::MAX)
        )
    );
    let q = Task::by_assignee("e").priority().lt(3);
    assert_eq!(
        sort(&q),
        SortCondition::Between(
            "$myapp#v1#task#priority_".into(),
            format!("$myapp#v1#task#priority_002{}", char::MAX)
        )
    );
    let q = Task::by_project("p")
        .priority()
        .eq(3)
        .status()
        .eq(Status::Open)
        .build();
    assert_eq!(
        sort(&q),
        SortCondition::Eq("$myapp#v1#task#priority_003#status_Open".into())
    );
    let q = Task::by_project("p")
        .priority()
        .eq(3)
        .status()
        .begins_with(Status::InProgress);
    assert_eq!(
        sort(&q),
        SortCondition::BeginsWith("$myapp#v1#task#priority_003#status_InProgress".into())
    );
}

#[test]
fn whole_sort_key_comparisons() {
    let q = Task::by_project("p")
        .sk()
        .between((1, Status::Open), (3, Status::Done));
    assert_eq!(
        sort(&q),
        SortCondition::Between(
            "$myapp#v1#task#priority_001#status_Open".into(),
            "$myapp#v1#task#priority_003#status_done".into()
        )
    );
    let q = Order::primary("u").sk().gt(("2024-01-15", "abc"));
    assert_eq!(
        sort(&q),
        SortCondition::Between(
            "ORDER#2024-01-15#abc\0".into(),
            format!("ORDER#{}", char::MAX)
        )
    );
}

#[test]
fn empty_ranges_send_nothing() {
    assert!(Task::by_project("p")
        .priority()
        .between(5, 3)
        .matches_nothing());
    assert!(!Task::by_project("p")
        .priority()
        .between(3, 3)
        .matches_nothing());
}

#[test]
fn bare_field_sort_keys_use_native_comparisons() {
    let q = UserProfile::by_email().email().gt("m");
    assert_eq!(q.partition_key(), ("gsi1pk", "user#email"));
    assert_eq!(sort(&q), SortCondition::Gt("m".into()));
    assert_eq!(q.key_condition_expression(), "#pk = :pk AND #sk > :sk1");
    let q = UserProfile::by_email().build();
    assert_eq!(q.sort_condition(), None);
    assert_eq!(q.key_condition_expression(), "#pk = :pk");
    // A static sort key is matched exactly.
    let q = UserProfile::primary(UserId("1".into())).build();
    assert_eq!(sort(&q), SortCondition::Eq("PROFILE".into()));
}

#[test]
fn order_and_limit() {
    let q = Entry::by_delta("acc").delta().lt(0).descending().limit(10);
    assert!(!q.scan_index_forward());
    assert_eq!(q.get_limit(), Some(10));
    assert_eq!(q.index_name(), Some("lsi1"));
    assert_eq!(q.partition_key(), ("pk", "$LEDGER#V1#ENTRY#ACCOUNT_acc"));
    let values = q.expression_attribute_values();
    assert_eq!(values.len(), 3);
    assert!(
        values.contains_key(":pk") && values.contains_key(":sk1") && values.contains_key(":sk2")
    );
}

#[test]
fn placeholders_only_in_expressions() {
    let q = Task::by_project("x' OR 1=1").priority().gt(1);
    let expression = q.key_condition_expression();
    assert!(
        !expression.contains("gsi1") && !expression.contains("x'"),
        "{expression}"
    );
}
