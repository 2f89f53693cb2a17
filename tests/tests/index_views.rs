//! Queries of projected indexes (`projection = keys_only | include(..)`)
//! return the index's view type, holding exactly what the index holds;
//! `hydrate` reads the whole entities behind views: in order, in chunks of
//! 100, unprocessed keys retried, hidden and deleted items left out.

use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{BatchPolicy, Client, Entity, EpochSeconds, Error, IndexView, ValidationError};
use entity_tests::clock::TestClock;
use entity_tests::harness::table;
use futures::TryStreamExt;
use std::time::Duration;

/// One index of each projection; `notes` is on none of them.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "views", soft_delete)]
#[pk(task_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(due, task_id), projection = include(title)))]
#[index(by_status(gsi = "gsi2", pk(status), sk(rank), projection = keys_only))]
#[index(by_rank(lsi = "lsi1", sk(rank), projection = include(title, notes)))]
#[index(whole(gsi = "gsi3", pk(status), sk(task_id)))]
struct Task {
    task_id: String,
    owner: String,
    status: String,
    /// Negative ranks sort below positive ones in the key text.
    rank: i32,
    #[entity(rename = "t")]
    title: String,
    due: String,
    notes: String,
}

fn task(id: &str, owner: &str, status: &str, rank: i32, due: &str) -> Task {
    Task {
        task_id: id.into(),
        owner: owner.into(),
        status: status.into(),
        rank,
        title: format!("title {id}"),
        due: due.into(),
        notes: "n".repeat(2_000),
    }
}

/// Another entity in `gsi2`, under the same partition and sort key prefix
/// as `Task`: a keys-only index holds no identity attribute, so the keys
/// tell the items apart.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "views")]
#[pk(note_id)]
#[sk()]
#[index(by_status(gsi = "gsi2", pk(format = "$views#v1#task#status_{status}"), sk(format = "$views#v1#task#rank_{rank}"), projection = keys_only))]
struct Note {
    note_id: String,
    status: String,
    rank: String,
}

#[tokio::test]
async fn an_include_index_returns_the_projected_fields_read_back_from_keys_and_attributes() {
    let t = table(&[Task::MODEL]).await;
    let tasks = [
        task("t1", "ann", "open", 3, "2026-12-01"),
        task("t2", "ann", "open", -4, "2026-11-30"),
        task("t3", "bob", "open", 1, "2026-12-02"),
    ];
    for task in &tasks {
        t.client.put(task).await.unwrap();
    }
    let views: Vec<TaskByOwnerView> = t.client.query(Task::by_owner("ann")).all().await.unwrap();
    // In sort key order (due), each with its key composites and `title`.
    let read: Vec<_> = views
        .iter()
        .map(|v| {
            (
                v.task_id.as_str(),
                v.owner.as_str(),
                v.due.as_str(),
                v.title.as_str(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("t2", "ann", "2026-11-30", "title t2"),
            ("t1", "ann", "2026-12-01", "title t1"),
        ]
    );
    assert_eq!(views[0].primary_key(), tasks[1].primary_key());
    // Sort key stages end in the view too.
    let later = t
        .client
        .query(Task::by_owner("ann").due().gte("2026-12-01"))
        .all()
        .await
        .unwrap();
    assert_eq!(later.len(), 1);
    assert_eq!(later[0].task_id, "t1");
    // The derives a view offers: Debug, Clone, PartialEq.
    assert_eq!(later[0].clone(), views[1]);
    assert!(format!("{:?}", views[0]).starts_with("TaskByOwnerView { task_id: \"t2\""));

    // A local index: the table key, the index's sort key and both
    // included fields.
    let by_rank: Vec<TaskByRankView> = t.client.query(Task::by_rank("t2")).all().await.unwrap();
    assert_eq!(by_rank.len(), 1);
    assert_eq!(
        (
            by_rank[0].task_id.as_str(),
            by_rank[0].rank,
            by_rank[0].notes.len()
        ),
        ("t2", -4, 2_000)
    );
    // An index projecting whole items still returns the entity.
    let whole: Vec<Task> = t.client.query(Task::whole("open")).all().await.unwrap();
    assert_eq!(whole, tasks);
}

#[tokio::test]
async fn a_keys_only_index_reads_its_fields_from_keys_and_skips_other_entities() {
    let t = table(&[Task::MODEL, Note::MODEL]).await;
    for (id, rank) in [("t1", 5), ("t2", -7), ("t3", 0)] {
        t.client
            .put(&task(id, "ann", "open", rank, "d"))
            .await
            .unwrap();
    }
    t.client
        .put(&task("t4", "ann", "done", 1, "d"))
        .await
        .unwrap();
    // A note whose index keys share the tasks' partition.
    let note = Note {
        note_id: "n1".into(),
        status: "open".into(),
        rank: "x".into(),
    };
    t.client.put(&note).await.unwrap();
    assert_eq!(Note::by_status_pk_of("open"), Task::by_status_pk_of("open"));
    assert!(Note::by_status_sk_of("x").starts_with(&Task::by_status_sk_of(5)[..18]));

    let views: Vec<TaskByStatusView> = t.client.query(Task::by_status("open")).all().await.unwrap();
    let read: Vec<_> = views
        .iter()
        .map(|v| (v.task_id.as_str(), v.status.as_str(), v.rank))
        .collect();
    assert_eq!(
        read,
        [("t2", "open", -7), ("t3", "open", 0), ("t1", "open", 5)]
    );
    // A range on the sort key, negative bound included.
    let low = t
        .client
        .query(Task::by_status("open").rank().lt(1))
        .all()
        .await
        .unwrap();
    assert_eq!(low.iter().map(|v| v.rank).collect::<Vec<_>>(), [-7, 0]);
    // Strict reading names the item that is not a Task.
    let err = t
        .client
        .query(Task::by_status("open"))
        .strict(true)
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Decode(e) if e.is_foreign()),
        "{err:?}"
    );
}

#[tokio::test]
async fn hydrate_reads_whole_entities_in_the_views_order_across_chunks() {
    let t = table(&[Task::MODEL]).await;
    // 250 tasks: three BatchGetItem chunks.
    let all: Vec<Task> = (0..250)
        .map(|i| {
            task(
                &format!("t{i:03}"),
                "ann",
                "open",
                1000 - i,
                &format!("d{:03}", 249 - i),
            )
        })
        .collect();
    t.client.batch_write().put_all(&all).await.unwrap();
    // By due date: the reverse of the ids.
    let views = t.client.query(Task::by_owner("ann")).all().await.unwrap();
    assert_eq!(views.len(), 250);
    let tasks = t.client.hydrate(&views).await.unwrap();
    let mut expected = all.clone();
    expected.reverse();
    assert_eq!(tasks, expected);

    // A page at a time, with the page's cursor.
    let page = t
        .client
        .query(Task::by_owner("ann"))
        .limit(7)
        .hydrate()
        .await
        .unwrap();
    assert_eq!(page.items, expected[..7]);
    assert!(page.cursor.is_some());
    // Every one, page by page.
    let streamed: Vec<Task> = t
        .client
        .query(Task::by_owner("ann"))
        .page_size(40)
        .hydrated()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed, expected);
}

#[tokio::test]
async fn hydrate_leaves_out_what_was_deleted_since_and_reads_repeats_once() {
    let t = table(&[Task::MODEL]).await;
    for i in 0..5 {
        let id = format!("t{i}");
        t.client
            .put(&task(&id, "ann", "open", i, &format!("d{i}")))
            .await
            .unwrap();
    }
    let views = t.client.query(Task::by_owner("ann")).all().await.unwrap();
    // Since the views were read: t1 soft-deleted, t3 removed for good.
    t.client.delete(Task::key("t1")).await.unwrap();
    t.client.purge(Task::key("t3")).await.unwrap();
    let mut asked = views.clone();
    asked.push(views[0].clone());
    let ids = |tasks: &[Task]| tasks.iter().map(|t| t.task_id.clone()).collect::<Vec<_>>();
    let tasks = t.client.hydrate(&asked).await.unwrap();
    assert_eq!(ids(&tasks), ["t0", "t2", "t4"]);
    // Soft-deleted items, when asked for.
    let tasks = t
        .client
        .hydrate(&views)
        .include_deleted(true)
        .await
        .unwrap();
    assert_eq!(ids(&tasks), ["t0", "t1", "t2", "t4"]);
    // Nothing to read: no request.
    let none: Vec<TaskByOwnerView> = Vec::new();
    assert!(t.client.hydrate(&none).await.unwrap().is_empty());
}

/// A client through a fault proxy, with fast retries.
async fn through_proxy(
    t: &entity_tests::harness::TestTable,
    attempts: u32,
) -> (FaultProxy, Client) {
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let name = t.client.table().to_owned();
    let client = Client::new(
        entity_tests::harness::fast_sdk(proxy.endpoint(), &name),
        name,
    )
    .with_batch_policy(BatchPolicy {
        max_attempts: attempts,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(10),
        concurrency: 2,
    });
    (proxy, client)
}

#[tokio::test]
async fn hydrate_retries_unprocessed_keys_and_drops_none() {
    let t = table(&[Task::MODEL]).await;
    let all: Vec<Task> = (0..120)
        .map(|i| task(&format!("t{i:03}"), "ann", "open", i, &format!("d{i:03}")))
        .collect();
    t.client.batch_write().put_all(&all).await.unwrap();
    let (proxy, client) = through_proxy(&t, 8).await;
    let views = client.query(Task::by_owner("ann")).all().await.unwrap();
    // Each chunk's first answers hold only part of its keys.
    proxy.faults().script(
        Operation::BatchGetItem,
        [
            Fault::PartialBatch { forward: 30 },
            Fault::PartialBatch { forward: 0 },
            Fault::PartialBatch { forward: 5 },
        ],
    );
    let tasks = client.hydrate(&views).await.unwrap();
    assert_eq!(tasks, all);
    assert!(proxy.faults().counts(Operation::BatchGetItem).received >= 5);

    // When the retries run out, the read fails whole, naming what is left.
    let (proxy, client) = through_proxy(&t, 2).await;
    proxy.faults().script(
        Operation::BatchGetItem,
        [Fault::PartialBatch { forward: 10 }; 4],
    );
    let err = client.hydrate(&views[..50]).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Unprocessed {
                operation: "hydrate",
                keys: 30
            }
        ),
        "{err:?}"
    );
}

/// A TTL and an included index: the TTL attribute is projected, so an
/// expired item is hidden from the index's queries too.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "views")]
#[pk(session_id)]
#[index(by_user(gsi = "gsi1", pk(user), sk(session_id), projection = include(device)))]
struct Session {
    session_id: String,
    user: String,
    device: String,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

#[tokio::test]
async fn an_expired_item_is_hidden_from_an_include_index_and_from_hydrate() {
    let t = table(&[Session::MODEL]).await;
    let clock = TestClock::at(1_000_000);
    let client = t.client.clone().with_clock(clock.clone());
    for (id, expires) in [("s1", 2_000_000), ("s2", 1_500_000)] {
        let session = Session {
            session_id: id.into(),
            user: "ann".into(),
            device: format!("phone {id}"),
            expires_at: Some(EpochSeconds(expires)),
        };
        client.put(&session).await.unwrap();
    }
    let views = client.query(Session::by_user("ann")).all().await.unwrap();
    assert_eq!(views.len(), 2);
    assert_eq!(views[1].device, "phone s2");
    clock.set(1_600_000);
    let live = client.query(Session::by_user("ann")).all().await.unwrap();
    assert_eq!(
        live.iter()
            .map(|v| v.session_id.as_str())
            .collect::<Vec<_>>(),
        ["s1"]
    );
    let hydrated = client.hydrate(&views).await.unwrap();
    assert_eq!(hydrated.len(), 1);
    assert_eq!(hydrated[0].session_id, "s1");
    let with_expired = client.hydrate(&views).include_expired(true).await.unwrap();
    assert_eq!(with_expired.len(), 2);
}

/// A tenant entity with a keys-only index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "views", tenant = org)]
#[pk(org, ticket_id)]
#[sk()]
#[index(by_queue(gsi = "gsi1", pk(org, queue), sk(ticket_id), projection = keys_only))]
struct Ticket {
    org: String,
    ticket_id: String,
    queue: String,
    body: String,
}

#[tokio::test]
async fn a_tenant_client_queries_views_and_hydrates_only_its_own() {
    let t = table(&[Ticket::MODEL]).await;
    for org in ["acme", "globex"] {
        for id in ["k1", "k2"] {
            let ticket = Ticket {
                org: org.into(),
                ticket_id: id.into(),
                queue: "support".into(),
                body: format!("{org} {id}"),
            };
            t.client.cross_tenant().put(&ticket).await.unwrap();
        }
    }
    let acme = t.client.tenant("acme");
    let views = acme
        .query(Ticket::tenant_by_queue("support"))
        .all()
        .await
        .unwrap();
    assert_eq!(views.len(), 2);
    assert!(views.iter().all(|v| v.org == "acme"));
    let tickets = acme.hydrate(&views).await.unwrap();
    let bodies: Vec<_> = tickets.iter().map(|t| t.body.as_str()).collect();
    assert_eq!(bodies, ["acme k1", "acme k2"]);

    // Another tenant's views are refused before anything is sent.
    let globex = t.client.tenant("globex");
    let err = globex.hydrate(&views).await.unwrap_err();
    assert!(matches!(err, Error::TenantMismatch { .. }), "{err:?}");
}

#[tokio::test]
async fn a_query_of_the_entity_itself_on_a_projected_index_is_still_refused() {
    let t = table(&[Task::MODEL]).await;
    // Built by hand, bypassing the typed accessor.
    let query: entity_client::Query<Task> =
        entity_client::Query::new(Some("gsi2"), "gsi2pk", "$views#v1#task#status_open".into());
    let err = t.client.query(query).all().await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Validation(ValidationError::QueryOfProjectedIndex {
                entity: "Task",
                projection: "KEYS_ONLY",
                ..
            })
        ),
        "{err:?}"
    );
}

/// A table key with a time bucket: the bucket does not give back the
/// instant, so the view has `at` only because `include(..)` lists it, and
/// keeps the table key it read for `hydrate`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "views")]
#[pk(format = "READING#{at:day}")]
#[sk(format = "{sensor}#{n}")]
#[index(by_sensor(gsi = "gsi1", pk(sensor), sk(n), projection = include(at)))]
struct Reading {
    at: chrono::DateTime<chrono::Utc>,
    sensor: String,
    n: u32,
    payload: String,
}

#[tokio::test]
async fn a_lossy_table_key_composite_is_read_from_its_attribute_and_the_key_kept() {
    let t = table(&[Reading::MODEL]).await;
    let at = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    let readings: Vec<Reading> = (0..3)
        .map(|n| Reading {
            at: at(&format!("2026-11-2{n}T10:00:00Z")),
            sensor: "s1".into(),
            n,
            payload: format!("p{n}"),
        })
        .collect();
    for r in &readings {
        t.client.put(r).await.unwrap();
    }
    let views = t
        .client
        .query(Reading::by_sensor("s1"))
        .all()
        .await
        .unwrap();
    let read: Vec<_> = views
        .iter()
        .map(|v| (v.sensor.as_str(), v.n, v.at))
        .collect();
    let expected: Vec<_> = readings
        .iter()
        .map(|r| (r.sensor.as_str(), r.n, r.at))
        .collect();
    assert_eq!(read, expected);
    assert_eq!(views[2].primary_key(), readings[2].primary_key());
    assert_eq!(t.client.hydrate(&views).await.unwrap(), readings);
}
