//! Seed 002's worked example, against the embedded server (or the endpoint
//! in `ENTITY_TEST_ENDPOINT`): the exact stored keys of its table of items,
//! and the per-collection query results of its tables.

use aws_sdk_dynamodb::types::AttributeValue;
use entity_client::{Collection, Entity, Error};
mod common;

use common::stored_at;
use entity_tests::harness;
use std::collections::HashMap;

// ---- Multi-tenant project management: tenantMembers (gsi1, clustered),
// byEmail and byAssignee (gsi2).

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Employee", rename_all = "camelCase")]
#[pk(employee_id)]
#[sk()]
#[index(tenant_members(
    gsi = "gsi1",
    collection = "tenantMembers",
    clustered,
    pk(tenant_id),
    sk(department, hire_date)
))]
#[index(by_email(gsi = "gsi2", pk(email), sk()))]
struct Employee {
    employee_id: String,
    tenant_id: String,
    department: String,
    hire_date: String,
    email: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Task", rename_all = "camelCase")]
#[pk(task_id)]
#[sk()]
#[index(tenant_members(
    gsi = "gsi1",
    collection = "tenantMembers",
    clustered,
    pk(tenant_id),
    sk(project_id, task_id)
))]
#[index(by_assignee(gsi = "gsi2", pk(employee_id), sk(priority)))]
struct Task {
    task_id: String,
    tenant_id: String,
    project_id: String,
    employee_id: String,
    priority: u8,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "tenantMembers", pk(tenant_id: String))]
enum TenantMembers {
    Employees(Employee),
    Tasks(Task),
}

fn alice() -> Employee {
    Employee {
        employee_id: "emp-alice".into(),
        tenant_id: "t-acme".into(),
        department: "engineering".into(),
        hire_date: "2024-01-15".into(),
        email: "alice@acme.test".into(),
    }
}

fn bob() -> Employee {
    Employee {
        employee_id: "emp-bob".into(),
        tenant_id: "t-acme".into(),
        department: "sales".into(),
        hire_date: "2023-06-01".into(),
        email: "bob@acme.test".into(),
    }
}

fn task() -> Task {
    Task {
        task_id: "t-001".into(),
        tenant_id: "t-acme".into(),
        project_id: "proj-alpha".into(),
        employee_id: "emp-alice".into(),
        priority: 2,
    }
}

fn s(item: &HashMap<String, AttributeValue>, name: &str) -> String {
    item[name].as_s().expect("a string").clone()
}

#[tokio::test]
async fn stores_exactly_the_keys_of_seed_002s_table() {
    let t = harness::table(&[Employee::MODEL, Task::MODEL]).await;
    for e in [alice(), bob()] {
        t.client.put(&e).await.unwrap();
    }
    t.client.put(&task()).await.unwrap();
    let rows = [
        (
            "$myapp#v1#employee#employeeid_emp-alice",
            "$myapp#v1#employee",
            "$myapp#v1#tenantmembers#tenantid_t-acme",
            "$myapp#v1#tenantmembers#employee_1#department_engineering#hiredate_2024-01-15",
            "Employee",
        ),
        (
            "$myapp#v1#task#taskid_t-001",
            "$myapp#v1#task",
            "$myapp#v1#tenantmembers#tenantid_t-acme",
            "$myapp#v1#tenantmembers#task_1#projectid_proj-alpha#taskid_t-001",
            "Task",
        ),
        (
            "$myapp#v1#employee#employeeid_emp-bob",
            "$myapp#v1#employee",
            "$myapp#v1#tenantmembers#tenantid_t-acme",
            "$myapp#v1#tenantmembers#employee_1#department_sales#hiredate_2023-06-01",
            "Employee",
        ),
    ];
    for (pk, sk, gsi1pk, gsi1sk, entity) in rows {
        let item = stored_at(&t.client, pk, sk).await;
        assert_eq!(s(&item, "gsi1pk"), gsi1pk);
        assert_eq!(s(&item, "gsi1sk"), gsi1sk);
        assert_eq!(s(&item, "__entity"), entity);
    }
}

#[tokio::test]
async fn queries_each_access_pattern_of_the_worked_example() {
    let t = harness::table(&[Employee::MODEL, Task::MODEL]).await;
    t.client
        .batch_write()
        .put(&alice())
        .put(&bob())
        .put(&task())
        .await
        .unwrap();

    // All tenant items: one Query, grouped per member.
    let all = t
        .client
        .query(TenantMembers::query("t-acme"))
        .grouped()
        .await
        .unwrap();
    let mut employees: Vec<&str> = all
        .employees
        .iter()
        .map(|e| e.employee_id.as_str())
        .collect();
    employees.sort();
    assert_eq!(employees, ["emp-alice", "emp-bob"]);
    assert_eq!(all.tasks, [task()]);

    // Employees in tenant / tasks in tenant: the entity accessors on the
    // clustered index return only their own items.
    let staff = t
        .client
        .query(Employee::tenant_members("t-acme"))
        .all()
        .await
        .unwrap();
    assert_eq!(staff.len(), 2);
    let engineers = t
        .client
        .query(
            Employee::tenant_members("t-acme")
                .department()
                .eq("engineering"),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(engineers, [alice()]);
    let tasks = t
        .client
        .query(Task::tenant_members("t-acme"))
        .all()
        .await
        .unwrap();
    assert_eq!(tasks, [task()]);

    // Employee by email, tasks by assignee.
    assert_eq!(
        t.client
            .query(Employee::by_email("bob@acme.test"))
            .one()
            .await
            .unwrap(),
        Some(bob())
    );
    let assigned = t
        .client
        .query(Task::by_assignee("emp-alice").priority().gte(1))
        .all()
        .await
        .unwrap();
    assert_eq!(assigned, [task()]);

    // Another tenant's partition is another partition.
    let other = t
        .client
        .query(TenantMembers::query("t-other"))
        .all()
        .await
        .unwrap();
    assert!(other.is_empty());
}

#[tokio::test]
async fn items_of_other_entities_are_skipped_unless_asked_for() {
    let t = harness::table(&[Employee::MODEL, Task::MODEL]).await;
    t.client.put(&alice()).await.unwrap();
    // Another service's item in the same collection partition.
    t.client
        .sdk()
        .put_item()
        .table_name(t.client.table())
        .item("pk", AttributeValue::S("invoice#1".into()))
        .item("sk", AttributeValue::S("invoice".into()))
        .item(
            "gsi1pk",
            AttributeValue::S("$myapp#v1#tenantmembers#tenantid_t-acme".into()),
        )
        .item(
            "gsi1sk",
            AttributeValue::S("$myapp#v1#tenantmembers#invoice_1#id_1".into()),
        )
        .item("__entity", AttributeValue::S("Invoice".into()))
        .send()
        .await
        .unwrap();
    let members = t
        .client
        .query(TenantMembers::query("t-acme"))
        .all()
        .await
        .unwrap();
    assert_eq!(members, [TenantMembers::Employees(alice())]);
    let err = t
        .client
        .query(TenantMembers::query("t-acme"))
        .strict(true)
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Decode(_)), "{err}");
}

// ---- Sub-collections: contributions > assignments on gsi2 (clustered).

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Employee", rename_all = "camelCase")]
#[pk(employee_id)]
#[sk()]
#[index(contributions(gsi = "gsi2", collection = ["contributions"], clustered, pk(employee_id), sk(department)))]
struct SubEmployee {
    employee_id: String,
    department: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Task", rename_all = "camelCase")]
#[pk(task_id)]
#[sk()]
#[index(assignments(gsi = "gsi2", collection = ["contributions", "assignments"], clustered, pk(employee_id), sk(project_id, task_id)))]
struct SubTask {
    task_id: String,
    employee_id: String,
    project_id: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "ProjectMember", rename_all = "camelCase")]
#[pk(employee_id, project_id)]
#[sk()]
#[index(assignments(gsi = "gsi2", collection = ["contributions", "assignments"], clustered, pk(employee_id), sk(project_id)))]
struct SubProjectMember {
    employee_id: String,
    project_id: String,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "contributions", pk(employee_id: String))]
enum Contributions {
    Employees(SubEmployee),
    Tasks(SubTask),
    ProjectMembers(SubProjectMember),
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = ["contributions", "assignments"], pk(employee_id: String))]
enum Assignments {
    Tasks(SubTask),
    ProjectMembers(SubProjectMember),
}

#[tokio::test]
async fn sub_collections_nest_in_the_sort_key() {
    let t = harness::table(&[SubEmployee::MODEL, SubTask::MODEL, SubProjectMember::MODEL]).await;
    let employee = SubEmployee {
        employee_id: "emp-alice".into(),
        department: "engineering".into(),
    };
    let task = SubTask {
        task_id: "t-001".into(),
        employee_id: "emp-alice".into(),
        project_id: "p-α".into(),
    };
    let member = SubProjectMember {
        employee_id: "emp-alice".into(),
        project_id: "p-α".into(),
    };
    t.client
        .batch_write()
        .put(&employee)
        .put(&task)
        .put(&member)
        .await
        .unwrap();

    // Seed 002's "SK shape written by each entity".
    assert_eq!(
        employee.contributions_sk(),
        "$myapp#v1#contributions#employee_1#department_engineering"
    );
    assert_eq!(
        task.assignments_sk(),
        "$myapp#v1#contributions#assignments#task_1#projectid_p-α#taskid_t-001"
    );
    assert_eq!(
        member.assignments_sk(),
        "$myapp#v1#contributions#assignments#projectmember_1#projectid_p-α"
    );
    let stored_task = stored_at(&t.client, &task.pk(), &task.sk()).await;
    assert_eq!(
        s(&stored_task, "gsi2pk"),
        "$myapp#v1#contributions#employeeid_emp-alice"
    );
    assert_eq!(s(&stored_task, "gsi2sk"), task.assignments_sk());

    // The parent returns every descendant; the child only its own members.
    let all = t
        .client
        .query(Contributions::query("emp-alice"))
        .grouped()
        .await
        .unwrap();
    assert_eq!(
        (all.employees, all.tasks, all.project_members),
        (vec![employee], vec![task.clone()], vec![member.clone()])
    );
    let assignments = t
        .client
        .query(Assignments::query("emp-alice"))
        .grouped()
        .await
        .unwrap();
    assert_eq!(
        (assignments.tasks, assignments.project_members),
        (vec![task], vec![member])
    );
}

// ---- Isolated: departmentStaff, each entity owning its sort key prefix.

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Employee", rename_all = "camelCase")]
#[pk(employee_id)]
#[sk()]
#[index(department_staff(
    gsi = "gsi1",
    collection = "departmentStaff",
    pk(department),
    sk(hire_date)
))]
struct StaffEmployee {
    employee_id: String,
    department: String,
    hire_date: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", name = "Equipment", rename_all = "camelCase")]
#[pk(equipment_id)]
#[sk()]
#[index(department_staff(
    gsi = "gsi1",
    collection = "departmentStaff",
    pk(department),
    sk(purchase_date)
))]
struct Equipment {
    equipment_id: String,
    department: String,
    purchase_date: String,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "departmentStaff", pk(department: String))]
enum DepartmentStaff {
    Employees(StaffEmployee),
    Equipment(Equipment),
}

#[tokio::test]
async fn isolated_collections_keep_each_entitys_prefix() {
    let t = harness::table(&[StaffEmployee::MODEL, Equipment::MODEL]).await;
    let e = StaffEmployee {
        employee_id: "e1".into(),
        department: "eng".into(),
        hire_date: "2020-01-15".into(),
    };
    let q = Equipment {
        equipment_id: "q1".into(),
        department: "eng".into(),
        purchase_date: "2023-06-01".into(),
    };
    t.client.batch_write().put(&e).put(&q).await.unwrap();
    assert_eq!(
        e.department_staff_sk(),
        "$myapp#v1#employee_1#hiredate_2020-01-15"
    );
    assert_eq!(
        q.department_staff_sk(),
        "$myapp#v1#equipment_1#purchasedate_2023-06-01"
    );
    assert_eq!(
        e.department_staff_pk(),
        "$myapp#v1#departmentstaff#department_eng"
    );

    let everything = t
        .client
        .query(DepartmentStaff::query("eng"))
        .grouped()
        .await
        .unwrap();
    assert_eq!(
        (everything.employees, everything.equipment),
        (vec![e.clone()], vec![q])
    );
    let employees_only = t
        .client
        .query(StaffEmployee::department_staff("eng"))
        .all()
        .await
        .unwrap();
    assert_eq!(employees_only, [e]);
}

#[test]
fn collection_queries_are_plain_values() {
    let q = TenantMembers::query("t-acme");
    assert_eq!(q.index_name(), Some("gsi1"));
    assert_eq!(
        q.partition_key(),
        ("gsi1pk", "$myapp#v1#tenantmembers#tenantid_t-acme")
    );
    assert_eq!(
        q.sort_condition().map(|(a, c)| (a, c.clone())),
        Some((
            "gsi1sk",
            entity_client::SortCondition::BeginsWith("$myapp#v1#tenantmembers#".into())
        ))
    );
    let q = DepartmentStaff::query("eng");
    assert_eq!(
        q.sort_condition(),
        None,
        "an isolated collection reads the whole partition"
    );
    let q = Assignments::query("emp-alice");
    assert_eq!(
        q.sort_condition().map(|(_, c)| c.clone()),
        Some(entity_client::SortCondition::BeginsWith(
            "$myapp#v1#contributions#assignments#".into()
        ))
    );
}

#[tokio::test]
async fn a_consistent_read_of_a_collection_on_a_global_index_is_refused_before_sending() {
    let t = harness::table(&[Employee::MODEL, Task::MODEL]).await;
    let err = t
        .client
        .query(TenantMembers::query("t-acme"))
        .consistent_read(true)
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Validation(entity_client::ValidationError::ConsistentReadOnGlobalIndex { .. })
        ),
        "{err:?}"
    );
}
