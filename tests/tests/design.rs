//! Table-design export (`entity_client::design`): the NoSQL Workbench model
//! matches the entities and its sample keys parse back; the access-pattern
//! table has one row per accessor; the per-index counts of the HTML page,
//! computed by the page's script in headless Chromium, are the counts the
//! server holds after the samples are written.
//!
//! The browser test runs when `ENTITY_BROWSER_TEST=1` (then Chromium must be
//! installed: `.ci/chromium.sh`) or when `chromium` is on the PATH; it
//! leaves the page and a screenshot in `target/design.html` and
//! `target/design.png`.

use aws_sdk_dynamodb::types::AttributeValue;
use entity_client::design::Design;
use entity_client::{Entity, Error, Item, KeyPart, TableDesign, ValidationError};
use entity_tests::harness;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

// ---- Seed 002's table: employees and tasks in one clustered
// `tenantMembers` collection (gsi1), tasks by project (gsi3) and by
// assignee (gsi2, sparse: an unassigned task is not in it), notes by title
// in a local index.

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", rename_all = "camelCase")]
#[pk(employee_id)]
#[sk()]
#[index(by_tenant(
    gsi = "gsi1",
    collection = "tenantMembers",
    clustered,
    pk(tenant_id),
    sk(department, hire_date)
))]
#[index(by_email(gsi = "gsi3", pk(email), sk()))]
struct Employee {
    employee_id: String,
    tenant_id: String,
    email: String,
    department: String,
    hire_date: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", rename_all = "camelCase")]
#[pk(task_id)]
#[sk()]
#[index(by_tenant(
    gsi = "gsi1",
    collection = "tenantMembers",
    clustered,
    pk(tenant_id),
    sk(project_id, task_id)
))]
#[index(by_project(gsi = "gsi3", pk(project_id), sk(priority, status)))]
#[index(by_assignee(gsi = "gsi2", pk(employee_id), sk(priority)))]
struct Task {
    task_id: String,
    tenant_id: String,
    project_id: String,
    employee_id: Option<String>,
    priority: u8,
    status: Status,
    tags: Vec<String>,
}

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
enum Status {
    Open,
    Done,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "myapp", rename_all = "camelCase")]
#[pk(project_id)]
#[sk(note_id)]
#[index(by_title(lsi = "lsi1", sk(title)))]
struct Note {
    project_id: String,
    note_id: String,
    title: String,
}

fn employees() -> Vec<Employee> {
    let employee = |id: &str, department: &str, hired: &str| Employee {
        employee_id: id.into(),
        tenant_id: "t-acme".into(),
        email: format!("{id}@acme.test"),
        department: department.into(),
        hire_date: hired.into(),
    };
    vec![
        employee("emp-alice", "engineering", "2024-01-15"),
        employee("emp-bob", "sales", "2023-06-01"),
    ]
}

fn tasks() -> Vec<Task> {
    let task = |n: u8, project: &str, assignee: Option<&str>, status| Task {
        task_id: format!("t-{n:03}"),
        tenant_id: if n < 4 { "t-acme" } else { "t-zeta" }.into(),
        project_id: project.into(),
        employee_id: assignee.map(Into::into),
        priority: n,
        status,
        tags: vec!["design".into()],
    };
    vec![
        task(1, "proj-alpha", Some("emp-alice"), Status::Open),
        task(2, "proj-alpha", Some("emp-bob"), Status::Done),
        task(3, "proj-beta", None, Status::Open),
        task(4, "proj-beta", Some("emp-alice"), Status::Open),
    ]
}

fn notes() -> Vec<Note> {
    let note = |id: &str, title: &str| Note {
        project_id: "proj-alpha".into(),
        note_id: id.into(),
        title: title.into(),
    };
    vec![note("n-1", "kickoff"), note("n-2", "retro")]
}

fn design() -> Design {
    Design::new("project-management")
        .author("entity tests")
        .date("Jan 15, 2024, 10:30 AM")
        .entity::<Employee>(&employees())
        .entity::<Task>(&tasks())
        .entity::<Note>(&notes())
}

const MODELS: [&entity_client::EntityModel; 3] = [Employee::MODEL, Task::MODEL, Note::MODEL];

// ---- The Workbench model.

#[test]
fn workbench_model_matches_the_entities() {
    let model: Value = serde_json::from_str(&design().workbench().expect("workbench")).unwrap();
    assert_eq!(model["ModelName"], "project-management");
    let meta = &model["ModelMetadata"];
    assert_eq!(meta["Version"], "3.0");
    assert_eq!(meta["AWSService"], "Amazon DynamoDB");
    assert_eq!(meta["Author"], "entity tests");
    assert_eq!(meta["DateCreated"], "Jan 15, 2024, 10:30 AM");

    let tables = model["DataModel"].as_array().unwrap();
    assert_eq!(tables.len(), 1);
    let table = &tables[0];
    assert_eq!(table["TableName"], "project-management");
    assert_eq!(table["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(table["DataAccess"], serde_json::json!({ "MySql": {} }));
    let keys = &table["KeyAttributes"];
    assert_eq!(
        keys["PartitionKey"],
        serde_json::json!({"AttributeName": "pk", "AttributeType": "S"})
    );
    assert_eq!(
        keys["SortKey"],
        serde_json::json!({"AttributeName": "sk", "AttributeType": "S"})
    );

    // Every GSI of the merged design, with its key attributes, and only
    // those (the LSI is not a Workbench index).
    let merged = TableDesign::from_models(&MODELS).unwrap();
    let gsis: BTreeMap<String, (String, Option<String>)> =
        (table["GlobalSecondaryIndexes"].as_array().unwrap().iter())
            .map(|gsi| {
                assert_eq!(gsi["Projection"]["ProjectionType"], "ALL");
                let key = &gsi["KeyAttributes"];
                let name = |k: &Value| k["AttributeName"].as_str().map(str::to_owned);
                assert_eq!(key["PartitionKey"]["AttributeType"], "S");
                let index = gsi["IndexName"].as_str().unwrap().to_owned();
                (
                    index,
                    (name(&key["PartitionKey"]).unwrap(), name(&key["SortKey"])),
                )
            })
            .collect();
    assert_eq!(gsis, merged.global);
    assert_eq!(gsis.keys().collect::<Vec<_>>(), ["gsi1", "gsi2", "gsi3"]);

    // Non-key attributes: every index key attribute and every field, typed
    // from the samples; never the table's key.
    let non_key: BTreeMap<&str, &str> = (table["NonKeyAttributes"].as_array().unwrap().iter())
        .map(|a| {
            (
                a["AttributeName"].as_str().unwrap(),
                a["AttributeType"].as_str().unwrap(),
            )
        })
        .collect();
    for attribute in [
        "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "lsi1sk", "email", "title",
    ] {
        assert_eq!(non_key.get(attribute), Some(&"S"), "{attribute}");
    }
    assert_eq!(non_key.get("priority"), Some(&"N"));
    assert_eq!(non_key.get("tags"), Some(&"L"));
    assert!(!non_key.contains_key("pk") && !non_key.contains_key("sk"));

    // One facet per entity, aliases from the key templates, every sample.
    let facets = table["TableFacets"].as_array().unwrap();
    let names: Vec<&str> = facets
        .iter()
        .map(|f| f["FacetName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Employee", "Task", "Note"]);
    for (facet, model) in facets.iter().zip(MODELS) {
        let alias = &facet["KeyAttributeAlias"];
        assert_eq!(alias["PartitionKeyAlias"], model.primary.pk.template);
        assert_eq!(alias["SortKeyAlias"], model.primary.sk.unwrap().template);
        assert_eq!(facet["DataAccess"], serde_json::json!({ "MySql": {} }));
        let attributes: Vec<&str> = (facet["NonKeyAttributes"].as_array().unwrap().iter())
            .map(|a| a.as_str().unwrap())
            .collect();
        for field in model.fields {
            let in_table_key = field.attribute == "pk" || field.attribute == "sk";
            assert!(
                in_table_key || attributes.contains(&field.attribute),
                "{}",
                field.attribute
            );
        }
    }
    assert_eq!(facets[0]["TableData"].as_array().unwrap().len(), 2);
    assert_eq!(facets[1]["TableData"].as_array().unwrap().len(), 4);
    assert_eq!(facets[2]["TableData"].as_array().unwrap().len(), 2);
}

#[test]
fn sample_keys_parse_back_with_the_entities_parsers() {
    let model: Value = serde_json::from_str(&design().workbench().unwrap()).unwrap();
    let facets = &model["DataModel"][0]["TableFacets"];

    let data = |i: usize| facets[i]["TableData"].as_array().unwrap().clone();
    let s = |item: &Value, attribute: &str| item[attribute]["S"].as_str().unwrap().to_owned();

    for (item, employee) in data(0).iter().zip(employees()) {
        assert_eq!(
            Employee::parse_pk(&s(item, "pk")).unwrap(),
            (employee.employee_id.clone(),)
        );
        Employee::parse_sk(&s(item, "sk")).unwrap();
        assert_eq!(
            Employee::parse_by_tenant_pk(&s(item, "gsi1pk")).unwrap(),
            (employee.tenant_id.clone(),)
        );
        assert_eq!(
            Employee::parse_by_tenant_sk(&s(item, "gsi1sk")).unwrap(),
            (employee.department.clone(), employee.hire_date.clone())
        );
        assert_eq!(
            Employee::parse_by_email_pk(&s(item, "gsi3pk")).unwrap(),
            (employee.email.clone(),)
        );
        assert_eq!(Employee::from_item(item_from_json(item)).unwrap(), employee);
    }
    for (item, task) in data(1).iter().zip(tasks()) {
        assert_eq!(
            Task::parse_pk(&s(item, "pk")).unwrap(),
            (task.task_id.clone(),)
        );
        assert_eq!(
            Task::parse_by_tenant_sk(&s(item, "gsi1sk")).unwrap(),
            (task.project_id.clone(), task.task_id.clone())
        );
        assert_eq!(
            Task::parse_by_project_sk(&s(item, "gsi3sk")).unwrap(),
            (task.priority, task.status)
        );
        match &task.employee_id {
            Some(assignee) => {
                assert_eq!(
                    Task::parse_by_assignee_pk(&s(item, "gsi2pk")).unwrap(),
                    (assignee.clone(),)
                );
                assert_eq!(
                    Task::parse_by_assignee_sk(&s(item, "gsi2sk")).unwrap(),
                    (task.priority,)
                );
            }
            // Sparse: an unassigned task has no gsi2 keys.
            None => assert!(item.get("gsi2pk").is_none() && item.get("gsi2sk").is_none()),
        }
        assert_eq!(Task::from_item(item_from_json(item)).unwrap(), task);
    }
    for (item, note) in data(2).iter().zip(notes()) {
        assert_eq!(
            Note::parse_pk(&s(item, "pk")).unwrap(),
            (note.project_id.clone(),)
        );
        assert_eq!(
            Note::parse_sk(&s(item, "sk")).unwrap(),
            (note.note_id.clone(),)
        );
        assert_eq!(
            Note::parse_by_title_sk(&s(item, "lsi1sk")).unwrap(),
            (note.title.clone(),)
        );
        assert_eq!(Note::from_item(item_from_json(item)).unwrap(), note);
    }
}

/// An item from DynamoDB JSON (the kinds the samples hold).
fn item_from_json(item: &Value) -> Item {
    fn value(v: &Value) -> AttributeValue {
        let (kind, inner) = v.as_object().unwrap().iter().next().unwrap();
        match kind.as_str() {
            "S" => AttributeValue::S(inner.as_str().unwrap().into()),
            "N" => AttributeValue::N(inner.as_str().unwrap().into()),
            "BOOL" => AttributeValue::Bool(inner.as_bool().unwrap()),
            "L" => AttributeValue::L(inner.as_array().unwrap().iter().map(value).collect()),
            other => panic!("unexpected DynamoDB JSON type {other}"),
        }
    }
    (item.as_object().unwrap().iter())
        .map(|(name, v)| (name.clone(), value(v)))
        .collect()
}

#[test]
fn an_entity_without_samples_keeps_its_facet_and_templates() {
    let design = Design::new("app").entity::<Note>(&[]);
    let model: Value = serde_json::from_str(&design.workbench().unwrap()).unwrap();
    let facet = &model["DataModel"][0]["TableFacets"][0];
    assert_eq!(facet["FacetName"], "Note");
    assert_eq!(facet["TableData"], serde_json::json!([]));
    let html = design.html().unwrap();
    assert!(html.contains(Note::MODEL.primary.pk.template));
    assert!(html.contains("No sample items in this index."));
}

#[test]
fn designs_the_table_would_refuse_are_refused() {
    // Two entities keying gsi3 on different attributes.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "myapp")]
    #[pk(id)]
    #[sk()]
    #[index(by_other(gsi = "gsi3", pk(other)))] // no sort key; Task's gsi3 has one
    struct Clash {
        id: String,
        other: String,
    }
    let clash = Design::new("app").entity::<Task>(&[]).entity::<Clash>(&[]);
    for result in [clash.workbench(), clash.markdown(), clash.html()] {
        assert!(
            matches!(
                result,
                Err(Error::Validation(ValidationError::TableDesign(_)))
            ),
            "{result:?}"
        );
    }

    // An entity declared in another table.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "myapp", table = "elsewhere")]
    #[pk(id)]
    struct Elsewhere {
        id: String,
    }
    let error = Design::new("app")
        .entity::<Elsewhere>(&[])
        .workbench()
        .unwrap_err();
    assert!(
        error.to_string().contains("declared in table elsewhere"),
        "{error}"
    );
}

// ---- The access-pattern table.

#[test]
fn markdown_has_one_row_per_accessor() {
    let markdown = design().markdown().unwrap();
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(
        lines[0],
        "| entity | accessor | index | pk template | sk template | operation |"
    );
    assert_eq!(lines[1], "|---|---|---|---|---|---|");
    let rows = &lines[2..];
    // key and primary per entity, one per index, one for the collection.
    let accessors: usize = MODELS.iter().map(|m| 2 + m.indexes.len()).sum::<usize>() + 1;
    assert_eq!(rows.len(), accessors, "{markdown}");
    assert!(rows
        .iter()
        .all(|r| r.starts_with("| ") && r.ends_with(" |") && r.matches(" | ").count() == 5));
    let row = |accessor: &str| -> &str {
        rows.iter()
            .find(|r| r.contains(accessor))
            .copied()
            .unwrap_or_else(|| panic!("no row for {accessor}"))
    };
    assert!(row("`Task::key(..)`").ends_with("| GetItem |"));
    assert!(row("`Task::by_project(..)`").contains(&format!(
        "| gsi3 | `{}` | `{}` |",
        Task::MODEL.indexes[1].pk.template,
        Task::MODEL.indexes[1].sk.unwrap().template
    )));
    assert!(row("`Employee::by_tenant(..)`").contains("| gsi1, collection tenantMembers |"));
    assert!(row("`Note::by_title(..)`").contains("| lsi1 |"));
    assert!(row("| collection tenantMembers |")
        .starts_with("| Employee, Task | collection tenantMembers | gsi1 |"));
    assert!(row("| collection tenantMembers |").contains("`begins_with $myapp#v1#tenantmembers#`"));
}

#[test]
fn markdown_lists_unique_lookups() {
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "shop", unique(email))]
    #[pk(customer_id)]
    #[sk()]
    struct Customer {
        customer_id: String,
        email: String,
    }
    let markdown = Design::new("shop")
        .entity::<Customer>(&[])
        .markdown()
        .unwrap();
    assert_eq!(markdown.lines().count(), 2 + 3, "{markdown}");
    assert!(markdown.contains("| Customer | `Customer::by_email(..)` | table | — | — | GetItem x2 (the email sentinel, then the item) |"), "{markdown}");
}

// ---- The page, in a browser, against the server.

/// Per index: items, distinct partitions, items of collection members.
type Summary = BTreeMap<String, (u64, u64, u64)>;

/// What each index holds once the samples are written, from the items as
/// `to_item` writes them: an index holds an item with all its keys.
fn expected_summary() -> Summary {
    let mut items: Vec<(Item, bool)> = Vec::new();
    items.extend(employees().iter().map(|e| (e.to_item().unwrap(), true)));
    items.extend(tasks().iter().map(|t| (t.to_item().unwrap(), true)));
    items.extend(notes().iter().map(|n| (n.to_item().unwrap(), false)));
    let indexes = [
        ("table", "pk", "sk", false),
        ("gsi1", "gsi1pk", "gsi1sk", true),
        ("gsi2", "gsi2pk", "gsi2sk", false),
        ("gsi3", "gsi3pk", "gsi3sk", false),
        ("lsi1", "pk", "lsi1sk", false),
    ];
    (indexes.into_iter())
        .map(|(name, pk, sk, collection)| {
            let held: Vec<&(Item, bool)> = items
                .iter()
                .filter(|(i, _)| i.contains_key(pk) && i.contains_key(sk))
                .collect();
            let partitions: BTreeSet<String> =
                held.iter().map(|(i, _)| format!("{:?}", i[pk])).collect();
            let members = held
                .iter()
                .filter(|(_, member)| collection && *member)
                .count();
            (
                name.to_owned(),
                (held.len() as u64, partitions.len() as u64, members as u64),
            )
        })
        .collect()
}

#[test]
fn expected_counts_are_what_the_server_holds() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let table = harness::table(&MODELS).await;
        let client = &table.client;
        for e in employees() {
            client.put(&e).await.unwrap();
        }
        for t in tasks() {
            client.put(&t).await.unwrap();
        }
        for n in notes() {
            client.put(&n).await.unwrap();
        }
        // The server's indexes are the ones the export names.
        let described = client
            .sdk()
            .describe_table()
            .table_name(client.table())
            .send()
            .await
            .unwrap();
        let described = described.table.unwrap();
        let mut gsis: Vec<&str> = described
            .global_secondary_indexes()
            .iter()
            .filter_map(|i| i.index_name())
            .collect();
        gsis.sort_unstable();
        assert_eq!(gsis, ["gsi1", "gsi2", "gsi3"]);
        let lsis: Vec<&str> = described
            .local_secondary_indexes()
            .iter()
            .filter_map(|i| i.index_name())
            .collect();
        assert_eq!(lsis, ["lsi1"]);

        let expected = expected_summary();
        for (index, (items, partitions, _)) in &expected {
            let (pk, _) = index_keys(index);
            let mut scan = client.sdk().scan().table_name(client.table());
            if *index != "table" {
                scan = scan.index_name(index);
            }
            let found = scan.send().await.unwrap();
            let found = found.items();
            let distinct: BTreeSet<String> = found.iter().map(|i| format!("{:?}", i[pk])).collect();
            assert_eq!(
                (found.len() as u64, distinct.len() as u64),
                (*items, *partitions),
                "{index}"
            );
        }
    });
}

fn index_keys(index: &str) -> (&'static str, &'static str) {
    match index {
        "table" => ("pk", "sk"),
        "gsi1" => ("gsi1pk", "gsi1sk"),
        "gsi2" => ("gsi2pk", "gsi2sk"),
        "gsi3" => ("gsi3pk", "gsi3sk"),
        _ => ("pk", "lsi1sk"),
    }
}

/// The Chromium to run: required with `ENTITY_BROWSER_TEST=1`, used when
/// found otherwise.
fn chromium() -> Option<PathBuf> {
    let required = std::env::var("ENTITY_BROWSER_TEST").is_ok_and(|v| v == "1");
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|path| path.is_file())
    });
    assert!(
        found.is_some() || !required,
        "ENTITY_BROWSER_TEST=1 but chromium is not installed (bash .ci/chromium.sh)"
    );
    found
}

/// Runs headless Chromium on `page` with `args`, returning its standard
/// output; killed after a minute.
fn run_chromium(chromium: &Path, args: &[String], page: &Path) -> String {
    let profile = std::env::temp_dir().join(harness::table_name("entity-chromium"));
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("chromium did not finish in a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(profile);
    assert!(
        output.status.success(),
        "chromium failed: {:?}",
        output.status
    );
    String::from_utf8(output.stdout).unwrap()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

#[test]
fn the_page_counts_each_index_in_a_browser() {
    let Some(chromium) = chromium() else {
        eprintln!("skipped: chromium not found (ENTITY_BROWSER_TEST=1 requires it)");
        return;
    };
    let html = design().html().unwrap();
    let target = target_dir();
    std::fs::create_dir_all(&target).unwrap();
    let target = std::fs::canonicalize(&target).unwrap();
    let page = target.join("design.html");
    std::fs::write(&page, &html).unwrap();

    // Before the script runs there is no summary: the counts below are the
    // browser's.
    assert!(html.contains("<pre id=\"summary\"></pre>"));
    let dom = run_chromium(&chromium, &["--dump-dom".to_owned()], &page);
    let start = dom
        .find("<pre id=\"summary\">")
        .expect("summary in the DOM")
        + "<pre id=\"summary\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    let summary: Value = serde_json::from_str(&dom[start..end]).expect("summary JSON");
    let rendered: Summary = (summary.as_object().unwrap().iter())
        .map(|(index, counts)| {
            let n = |k: &str| counts[k].as_u64().unwrap();
            (
                index.clone(),
                (n("items"), n("partitions"), n("collection_items")),
            )
        })
        .collect();
    assert_eq!(rendered, expected_summary());
    // Spot checks of the expectation itself: the unassigned task is not in
    // gsi2; gsi1 holds t-acme's two employees and three tasks and t-zeta's
    // task, all collection members.
    assert_eq!(rendered["gsi2"], (3, 2, 0));
    assert_eq!(rendered["gsi1"], (6, 2, 6));
    assert_eq!(rendered["table"].0, 8);

    let png = target.join("design.png");
    let _ = std::fs::remove_file(&png);
    let screenshot = [
        format!("--screenshot={}", png.display()),
        "--window-size=1280,900".to_owned(),
    ];
    run_chromium(&chromium, &screenshot, &page);
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "{} bytes",
        bytes.len()
    );
    eprintln!("page: {}, screenshot: {}", page.display(), png.display());
}

// ---- Sharded and tenant keys.

/// Seed 003's sharded partition (`STATUS#ACTIVE#SHARD#7`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Member")]
#[pk(format = "STATUS#{status}", shards = 10)]
#[sk(format = "USER#{user_id}")]
struct Member {
    status: String,
    user_id: String,
}

/// Seed 004's tenant products (`PRODUCT#<tenant>`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Product", tenant = tenant_id)]
#[pk(format = "PRODUCT#{tenant_id}")]
#[sk(format = "{product_id}")]
struct Product {
    tenant_id: String,
    product_id: String,
}

#[test]
fn shards_and_tenants_are_shown() {
    let member = Member {
        status: "ACTIVE".into(),
        user_id: "u-1".into(),
    };
    let product = Product {
        tenant_id: "t-001".into(),
        product_id: "p-9".into(),
    };
    let design = Design::new("legacy")
        .entity::<Member>(std::slice::from_ref(&member))
        .entity::<Product>(&[product]);

    let markdown = design.markdown().unwrap();
    assert!(
        markdown.contains("| Member | `Member::key(..)` | table | `STATUS#{status}#SHARD#{shard} (10 shards)` | `USER#{user_id}` | GetItem |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| Product (tenant tenant_id) | `Product::key(..)` |"),
        "{markdown}"
    );

    let model: Value = serde_json::from_str(&design.workbench().unwrap()).unwrap();
    let facets = &model["DataModel"][0]["TableFacets"];
    assert_eq!(
        facets[0]["KeyAttributeAlias"]["PartitionKeyAlias"],
        "STATUS#{status}#SHARD#{shard} (10 shards)"
    );
    assert_eq!(facets[1]["FacetName"], "Product (tenant tenant_id)");
    // The sample's key is a real sharded key: its shard is the one the
    // entity picks, and the parser reads it back.
    let pk = facets[0]["TableData"][0]["pk"]["S"].as_str().unwrap();
    assert_eq!(pk, member.primary_key().pk);
    assert!(pk.starts_with("STATUS#ACTIVE#SHARD#"), "{pk}");
    assert_eq!(Member::parse_pk(pk).unwrap(), ("ACTIVE".to_owned(),));

    let html = design.html().unwrap();
    assert!(html.contains("STATUS#{status}#SHARD#{shard} (10 shards)"));
    assert!(html.contains("Product (tenant tenant_id)"));
}
