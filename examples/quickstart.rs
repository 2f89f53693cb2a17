//! Quickstart: a multi-tenant project management app, end to end.
//!
//! Starts an embedded DynamoDB-compatible server, creates the table from the
//! entities, writes employees and tasks, queries each access pattern, pages
//! with a cursor, updates (including a change of index key composites), runs
//! a transaction, and prints what it did.
//!
//! Run it with `cargo run -p examples --example quickstart`.

mod app;

use app::{task, Doc, Employee, Status, Task, TenantMembers};
use entity_client::expr::Update;
use entity_client::{EmbeddedDynamo, Entity, Error};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = EmbeddedDynamo::start().await?;
    println!("embedded DynamoDB at {}", server.endpoint());
    let client = server.client("project-management");
    client
        .create_table(&[Employee::MODEL, Task::MODEL, Doc::MODEL])
        .await?;
    println!("created table `project-management` with gsi1, gsi2, gsi3 from the entities");

    // Write: two employees, 30 tasks, in batches of 25 with retries.
    let alice = Employee {
        employee_id: "emp-alice".into(),
        tenant_id: "t-acme".into(),
        email: "alice@acme.test".into(),
        department: "engineering".into(),
        hire_date: "2024-01-15".into(),
        name: "Alice".into(),
    };
    let bob = Employee {
        employee_id: "emp-bob".into(),
        tenant_id: "t-acme".into(),
        email: "bob@acme.test".into(),
        department: "sales".into(),
        hire_date: "2023-06-01".into(),
        name: "Bob".into(),
    };
    client.create(&alice).await?;
    client.create(&bob).await?;
    let tasks: Vec<Task> = (1..=30)
        .map(|n| {
            task(
                n,
                "proj-alpha",
                if n % 3 == 0 { "emp-bob" } else { "emp-alice" },
            )
        })
        .collect();
    let written = client.batch_write().put_all(&tasks).await?;
    println!(
        "wrote 2 employees and {} tasks ({} unprocessed)",
        written.written,
        written.unprocessed.len()
    );
    println!(
        "  alice's keys: pk={} gsi1pk={} gsi1sk={}",
        alice.pk(),
        alice.by_tenant_pk(),
        alice.by_tenant_sk()
    );

    // Create refuses to overwrite.
    match client.create(&alice).await {
        Err(Error::ConditionFailed { .. }) => {
            println!("create(alice) again: refused, the item exists")
        }
        other => println!("create(alice) again: unexpected {other:?}"),
    }

    // Each access pattern.
    let staff = client.query(Employee::by_tenant("t-acme")).all().await?;
    println!(
        "employees in t-acme: {:?}",
        staff.iter().map(|e| &e.name).collect::<Vec<_>>()
    );
    let engineers = client
        .query(Employee::by_tenant("t-acme").department().eq("engineering"))
        .all()
        .await?;
    println!("engineers in t-acme: {}", engineers.len());
    let by_email = client
        .query(Employee::by_email("bob@acme.test"))
        .one()
        .await?;
    println!(
        "employee by email bob@acme.test: {:?}",
        by_email.map(|e| e.name)
    );
    let urgent = client
        .query(
            Task::by_assignee("emp-alice")
                .priority()
                .gte(3)
                .descending(),
        )
        .all()
        .await?;
    println!(
        "alice's tasks with priority >= 3: {} (highest first: {:?})",
        urgent.len(),
        urgent.first().map(|t| t.priority)
    );
    let f = Task::fields();
    let p4_open = client
        .query(Task::by_project("proj-alpha").priority().eq(4))
        .filter(f.status.eq(Status::Open))
        .all()
        .await?;
    println!("open priority-4 tasks in proj-alpha: {}", p4_open.len());

    // The whole tenant, employees and tasks, in one Query, grouped.
    let tenant = client
        .query(TenantMembers::query("t-acme"))
        .grouped()
        .await?;
    println!(
        "tenantMembers of t-acme (one Query): {} employees, {} tasks",
        tenant.employees.len(),
        tenant.tasks.len()
    );

    // Page through the project 10 at a time with the signed cursor.
    let mut cursor = String::new();
    let mut pages = 0;
    loop {
        let page = client
            .query(Task::by_project("proj-alpha").limit(10))
            .cursor(cursor.clone())
            .await?;
        pages += 1;
        println!("  page {pages}: {} tasks", page.items.len());
        match page.cursor {
            Some(next) => cursor = next,
            None => break,
        }
    }
    // Flip one character: the signature no longer matches.
    let mut tampered: Vec<char> = cursor.chars().collect();
    tampered[4] = if tampered[4] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    let refused = client
        .query(Task::by_project("proj-alpha").limit(10))
        .cursor(tampered)
        .await;
    println!(
        "a tampered cursor: {}",
        refused.err().map(|e| e.to_string()).unwrap_or_default()
    );

    // Update: priority and status are index key composites, so they change
    // together and both index keys are recomposed.
    let updated: Task = client
        .patch(Task::key("t-001"))
        .apply(Task::set_priority_status(4, Status::Done))
        .append(f.comments, vec!["shipped".to_owned()])
        .return_new()
        .await?;
    println!(
        "t-001 now priority {} {:?}, gsi3sk={}",
        updated.priority,
        updated.status,
        updated.by_project_sk()
    );
    let done = client
        .query(
            Task::by_project("proj-alpha")
                .priority()
                .eq(4)
                .status()
                .eq(Status::Done),
        )
        .all()
        .await?;
    println!(
        "done priority-4 tasks found through the recomposed key: {:?}",
        done.iter().map(|t| &t.task_id).collect::<Vec<_>>()
    );

    // A transaction across entities: hand t-002 to bob, only if bob exists.
    let e = Employee::fields();
    client
        .transact_write()
        .update(
            Task::key("t-002"),
            Update::new().apply(Task::set_employee_id("emp-bob")),
            None,
        )
        .condition_check(Employee::key("emp-bob"), e.tenant_id.eq("t-acme"))
        .await?;
    let bobs = client.query(Task::by_assignee("emp-bob")).all().await?;
    println!("after the transaction bob has {} tasks", bobs.len());
    let failed = client
        .transact_write()
        .update(
            Task::key("t-003"),
            Update::new().apply(Task::set_employee_id("emp-carol")),
            None,
        )
        .condition_check(Employee::key("emp-carol"), e.tenant_id.eq("t-acme"))
        .await;
    if let Err(Error::TransactionCanceled { reasons, .. }) = failed {
        let why: Vec<String> = reasons.iter().map(ToString::to_string).collect();
        println!(
            "handing t-003 to a missing employee was canceled: {}",
            why.join(", ")
        );
    }
    lifecycle(&client).await
}

/// History, soft delete and restore on one document.
async fn lifecycle(client: &entity_client::Client) -> Result<(), Box<dyn std::error::Error>> {
    let mut doc = client
        .create(&Doc {
            doc_id: "spec".into(),
            project_id: "proj-alpha".into(),
            body: "draft".into(),
            version: 0,
        })
        .await?;
    doc.body = "reviewed".into();
    let doc = client.put(&doc).await?; // version 2, snapshot spec@0000000002
    let history = client.history(Doc::key("spec")).all().await?;
    let bodies: Vec<String> = history
        .iter()
        .map(|d| format!("v{} {}", d.version, d.body))
        .collect();
    println!("history of spec, newest first: {}", bodies.join(", "));

    client.delete(Doc::key("spec")).await?; // marked deleted, out of gsi2
    let visible = client.get(Doc::key("spec")).await?;
    let listed = client.query(Doc::by_project("proj-alpha")).all().await?;
    println!(
        "after a soft delete: get {}, {} in the project index",
        if visible.is_some() {
            "finds it"
        } else {
            "finds nothing"
        },
        listed.len()
    );
    let restored = client.restore(Doc::key("spec")).await?;
    let listed = client.query(Doc::by_project("proj-alpha")).all().await?;
    println!(
        "restored at version {} (was {}), {} in the project index again",
        restored.version,
        doc.version,
        listed.len()
    );
    Ok(())
}
