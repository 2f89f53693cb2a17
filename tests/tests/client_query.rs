//! Queries against a server: every typed sort key operator, order, limits,
//! filters, consistent reads, the `items`/`pages` streams, `one`, `all`,
//! pages resumed with cursors (no duplicates, no gaps), invalid cursors, and
//! partitions shared with other entities.
//!
//! Servers split pages differently under the 1 MB limit, so the tests assert
//! on the items read, never on how many pages it took.

mod common;

use chrono::TimeZone;
use common::task;
use entity_client::{Client, Entity, Error, QueryRequest, ValidationError};
use entity_tests::harness::{table, TestTable};
use entity_tests::{Entry, Order, Status, Task, UserId, UserProfile};
use futures::TryStreamExt;

const STATUSES: [Status; 3] = [Status::Open, Status::InProgress, Status::Done];

/// 27 tasks per project: priorities 1..=9 times three statuses.
fn project_tasks(project: &str) -> Vec<Task> {
    let mut out = Vec::new();
    for priority in 1..=9u8 {
        for (i, status) in STATUSES.into_iter().enumerate() {
            let assignee = if priority % 2 == 1 { "odd" } else { "even" };
            let id = format!("{project}-{priority}-{i}");
            out.push(task(&id, project, assignee, priority, status));
        }
    }
    out
}

async fn tasks_table() -> (TestTable, Vec<Task>) {
    let t = table(&[Task::MODEL]).await;
    let p1 = project_tasks("p1");
    let out = t
        .client
        .batch_write()
        .put_all(&p1)
        .put_all(&project_tasks("p2"))
        .await
        .unwrap();
    assert!(out.unprocessed.is_empty());
    settle(&t.client, Task::by_project("p1"), 27).await;
    settle(&t.client, Task::by_project("p2"), 27).await;
    settle(&t.client, Task::by_assignee("even"), 24).await;
    settle(&t.client, Task::by_assignee("odd"), 30).await;
    (t, p1)
}

/// Waits until a global index shows `count` items for `query`.
async fn settle<E: Entity + entity_client::NotTenant + Send + 'static>(
    client: &Client,
    query: impl Into<entity_client::Query<E>>,
    count: usize,
) {
    let query = query.into();
    common::eventually(count, || async {
        client.query(query.clone()).all().await.unwrap().len()
    })
    .await;
}

/// The ids of `tasks` that satisfy `keep`, in `by_project` sort key order.
fn expected(tasks: &[Task], keep: impl Fn(&Task) -> bool) -> Vec<String> {
    let mut kept: Vec<&Task> = tasks.iter().filter(|t| keep(t)).collect();
    kept.sort_by_key(|t| t.by_project_sk());
    kept.into_iter().map(|t| t.task_id.clone()).collect()
}

fn ids(tasks: &[Task]) -> Vec<String> {
    tasks.iter().map(|t| t.task_id.clone()).collect()
}

async fn query_ids(request: QueryRequest<Task>) -> Vec<String> {
    ids(&request.all().await.unwrap())
}

/// Every item of a query, one `.await`ed page at a time, resumed with the
/// previous page's cursor; each page holds at most `limit` items.
async fn by_cursor<E: Entity + entity_client::NotTenant + Send + 'static>(
    limit: usize,
    request: impl Fn(Option<String>) -> QueryRequest<E>,
) -> Vec<E> {
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..10_000 {
        let page = request(cursor.take()).await.unwrap();
        assert!(page.items.len() <= limit, "{} > {limit}", page.items.len());
        out.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return out,
        }
    }
    panic!("the cursor never ran out")
}

#[tokio::test]
async fn partition_only_query_reads_its_partition_in_key_order() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let all = c.query(Task::by_project("p1")).all().await.unwrap();
    assert_eq!(ids(&all), expected(&p1, |_| true));
    // Every item decodes to exactly what was written.
    let mut written = p1.clone();
    written.sort_by_key(|t| t.by_project_sk());
    assert_eq!(all, written);
    assert!(c
        .query(Task::by_project("nobody"))
        .all()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn sort_key_operators_on_one_composite() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let q = query_ids;
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().eq(3))).await,
        expected(&p1, |t| t.priority == 3)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().eq(3))).await,
        expected(&p1, |t| t.priority == 3)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().gt(5))).await,
        expected(&p1, |t| t.priority > 5)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().gte(5))).await,
        expected(&p1, |t| t.priority >= 5)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().lt(3))).await,
        expected(&p1, |t| t.priority < 3)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().lte(3))).await,
        expected(&p1, |t| t.priority <= 3)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().between(2, 4))).await,
        expected(&p1, |t| (2..=4).contains(&t.priority))
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().begins_with(9))).await,
        expected(&p1, |t| t.priority == 9)
    );
    // The ends of the range: nothing below 1, nothing above 9.
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().lt(1))).await,
        Vec::<String>::new()
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().gt(9))).await,
        Vec::<String>::new()
    );
    // An empty range is answered without a request.
    assert_eq!(
        q(c.query(Task::by_project("p1").priority().between(5, 3))).await,
        Vec::<String>::new()
    );
    // The single-composite index.
    let by_assignee = c
        .query(Task::by_assignee("even").priority().between(4, 6))
        .all()
        .await
        .unwrap();
    let mut got: Vec<String> = ids(&by_assignee);
    got.sort();
    let mut want: Vec<String> = [&p1[..], &project_tasks("p2")[..]]
        .concat()
        .iter()
        .filter(|t| t.employee_id == "even" && (4..=6).contains(&t.priority))
        .map(|t| t.task_id.clone())
        .collect();
    want.sort();
    assert_eq!(got, want);
    assert!(by_assignee
        .windows(2)
        .all(|w| w[0].priority <= w[1].priority));
}

#[tokio::test]
async fn sort_key_operators_on_the_last_composite() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let q = query_ids;
    let key = |status: Status| Task::by_project_sk_of(3, status);
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .eq(Status::Open)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.status == Status::Open)
    );
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .begins_with(Status::InProgress)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.status == Status::InProgress)
    );
    // Comparisons follow the stored key text ("InProgress" < "Open" <
    // "done").
    let pivot = key(Status::Open);
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .gt(Status::Open)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.by_project_sk() > pivot)
    );
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .gte(Status::Open)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.by_project_sk() >= pivot)
    );
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .lt(Status::Open)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.by_project_sk() < pivot)
    );
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .lte(Status::Open)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.by_project_sk() <= pivot)
    );
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .priority()
                .eq(3)
                .status()
                .between(Status::InProgress, Status::Open)
        ))
        .await,
        expected(&p1, |t| t.priority == 3 && t.status != Status::Done)
    );
}

#[tokio::test]
async fn whole_sort_key_comparisons() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let q = query_ids;
    let low = Task::by_project_sk_of(2, Status::Open);
    let high = Task::by_project_sk_of(4, Status::InProgress);
    assert_eq!(
        q(c.query(
            Task::by_project("p1")
                .sk()
                .between((2, Status::Open), (4, Status::InProgress))
        ))
        .await,
        expected(&p1, |t| {
            let sk = t.by_project_sk();
            low <= sk && sk <= high
        })
    );
    let pivot = Task::by_project_sk_of(8, Status::Open);
    assert_eq!(
        q(c.query(Task::by_project("p1").sk().gt((8, Status::Open)))).await,
        expected(&p1, |t| t.by_project_sk() > pivot)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").sk().gte((8, Status::Open)))).await,
        expected(&p1, |t| t.by_project_sk() >= pivot)
    );
    let pivot = Task::by_project_sk_of(2, Status::Open);
    assert_eq!(
        q(c.query(Task::by_project("p1").sk().lt((2, Status::Open)))).await,
        expected(&p1, |t| t.by_project_sk() < pivot)
    );
    assert_eq!(
        q(c.query(Task::by_project("p1").sk().lte((2, Status::Open)))).await,
        expected(&p1, |t| t.by_project_sk() <= pivot)
    );
}

#[tokio::test]
async fn descending_limit_and_filters() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let f = Task::fields();
    let mut all_desc = expected(&p1, |_| true);
    all_desc.reverse();
    assert_eq!(
        query_ids(c.query(Task::by_project("p1").descending())).await,
        all_desc
    );
    assert_eq!(
        query_ids(c.query(Task::by_project("p1").descending().limit(4))).await,
        all_desc[..4]
    );
    assert_eq!(
        query_ids(c.query(Task::by_project("p1").limit(5))).await,
        expected(&p1, |_| true)[..5]
    );
    // A filter runs after the key condition: with a limit, the limit counts
    // the items that pass it.
    let not_done = expected(&p1, |t| t.status != Status::Done);
    assert_eq!(
        query_ids(
            c.query(Task::by_project("p1"))
                .filter(f.status.ne(Status::Done))
        )
        .await,
        not_done
    );
    let page = c
        .query(Task::by_project("p1").limit(7))
        .filter(f.status.ne(Status::Done))
        .await
        .unwrap();
    assert_eq!(ids(&page.items), not_done[..7]);
    // Two filters are both applied.
    assert_eq!(
        query_ids(
            c.query(Task::by_project("p1").priority().gte(4))
                .filter(f.status.eq(Status::Open))
                .filter(f.priority.lt(7u8))
        )
        .await,
        expected(&p1, |t| t.status == Status::Open
            && (4..7).contains(&t.priority))
    );
    // A filter that keeps nothing.
    assert!(c
        .query(Task::by_project("p1"))
        .filter(f.title.eq("no such title"))
        .all()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn streams_one_and_all() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let every = expected(&p1, |_| true);

    let items: Vec<Task> = c
        .query(Task::by_project("p1"))
        .page_size(4)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&items), every);

    let pages: Vec<_> = c
        .query(Task::by_project("p1"))
        .page_size(5)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert!(pages.iter().all(|p| p.items.len() <= 5));
    let from_pages: Vec<Task> = pages.into_iter().flat_map(|p| p.items).collect();
    assert_eq!(ids(&from_pages), every);

    // A stream stops at the query's limit.
    let limited: Vec<Task> = c
        .query(Task::by_project("p1").limit(10))
        .page_size(3)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&limited), every[..10]);
    let limited = c
        .query(Task::by_project("p1").limit(10))
        .page_size(3)
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&limited), every[..10]);

    let first = c.query(Task::by_project("p1")).one().await.unwrap();
    assert_eq!(first.map(|t| t.task_id), Some(every[0].clone()));
    let last = c
        .query(Task::by_project("p1").descending())
        .one()
        .await
        .unwrap();
    assert_eq!(last.map(|t| t.task_id), every.last().cloned());
    assert_eq!(
        c.query(Task::by_project("nobody")).one().await.unwrap(),
        None
    );
    // A page with no limit reads to the end.
    let page = c.query(Task::by_project("p1")).await.unwrap();
    assert_eq!(ids(&page.items), every);
    assert_eq!(page.cursor, None);
}

/// `limit` on the request is the query's limit: a total across requests,
/// not a page size; the last one given wins.
#[tokio::test]
async fn a_limit_on_the_request_is_the_querys_limit() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let every = expected(&p1, |_| true);

    let page = c.query(Task::by_project("p1")).limit(10).await.unwrap();
    assert_eq!(ids(&page.items), every[..10]);
    assert!(page.cursor.is_some());
    // Read 3 per request, 10 in all.
    let limited = c
        .query(Task::by_project("p1"))
        .page_size(3)
        .limit(10)
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&limited), every[..10]);
    let streamed: Vec<Task> = c
        .query(Task::by_project("p1"))
        .limit(4)
        .page_size(3)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&streamed), every[..4]);
    // It replaces the query's own.
    let replaced = c
        .query(Task::by_project("p1").limit(2))
        .limit(5)
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&replaced), every[..5]);
    // A cursor resumes after the page, the limit counting again.
    let next = c
        .query(Task::by_project("p1"))
        .limit(10)
        .cursor(page.cursor.unwrap())
        .await
        .unwrap();
    assert_eq!(ids(&next.items), every[10..20]);
}

#[tokio::test]
async fn cursors_resume_with_no_duplicates_and_no_gaps() {
    let (t, p1) = tasks_table().await;
    let c = &t.client;
    let f = Task::fields();
    let every = expected(&p1, |_| true);

    // Pages of 4: every item exactly once, in order.
    let got = by_cursor(4, |cursor| {
        c.query(Task::by_project("p1").limit(4))
            .cursor(cursor.unwrap_or_default())
    })
    .await;
    assert_eq!(ids(&got), every);

    // Descending, with a filter, and the page size given separately.
    let mut want = expected(&p1, |t| t.status != Status::Open);
    want.reverse();
    let got = by_cursor(3, |cursor| {
        let request = c
            .query(Task::by_project("p1").descending())
            .page_size(3)
            .filter(f.status.ne(Status::Open));
        match cursor {
            Some(cursor) => request.cursor(cursor),
            None => request,
        }
    })
    .await;
    assert_eq!(ids(&got), want);

    // A limit and a filter: the limit counts items that pass the filter, and
    // the cursor resumes right after the last one returned.
    let got = by_cursor(4, |cursor| {
        c.query(Task::by_project("p1").limit(4))
            .filter(f.status.eq(Status::Done))
            .cursor(cursor.unwrap_or_default())
    })
    .await;
    assert_eq!(ids(&got), expected(&p1, |t| t.status == Status::Done));

    // A cursor from a page of the `pages` stream resumes an `.await`ed page.
    let pages = c.query(Task::by_project("p1")).page_size(6).pages();
    futures::pin_mut!(pages);
    let first = pages.try_next().await.unwrap().expect("a first page");
    let rest = c
        .query(Task::by_project("p1"))
        .cursor(first.cursor.expect("more follow"))
        .await
        .unwrap();
    assert_eq!(
        ids(&[first.items, rest.items].concat()),
        every,
        "no duplicates, no gaps"
    );

    // A cursor is resumable by another client that shares the cursor secret
    // (another replica, or after a restart), and by a stream; a client
    // without the secret refuses it.
    let c = &c.clone().with_cursor_secret(b"shared secret".to_vec());
    let first = c.query(Task::by_project("p1").limit(10)).await.unwrap();
    assert_eq!(ids(&first.items), every[..10]);
    let cursor = first.cursor.expect("more follow");
    let stranger = Client::new(c.sdk().clone(), c.table());
    let refused = stranger
        .query(Task::by_project("p1"))
        .cursor(cursor.clone())
        .all()
        .await;
    assert!(
        matches!(refused, Err(entity_client::Error::InvalidCursor { .. })),
        "{refused:?}"
    );
    let other =
        Client::new(c.sdk().clone(), c.table()).with_cursor_secret(b"shared secret".to_vec());
    let rest = other
        .query(Task::by_project("p1"))
        .cursor(cursor.clone())
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&rest), every[10..]);
    let rest: Vec<Task> = c
        .query(Task::by_project("p1"))
        .cursor(cursor)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&rest), every[10..]);
}

#[tokio::test]
async fn cursors_with_a_secret_of_your_own() {
    let (t, p1) = tasks_table().await;
    let every = expected(&p1, |_| true);
    let ours = t.client.clone().with_cursor_secret("s3cret");
    let page = ours.query(Task::by_project("p1").limit(5)).await.unwrap();
    let cursor = page.cursor.unwrap();
    let rest = ours
        .query(Task::by_project("p1"))
        .cursor(cursor.clone())
        .all()
        .await
        .unwrap();
    assert_eq!(ids(&rest), every[5..]);
    // Another secret (here: the default) cannot read it.
    let err = t
        .client
        .query(Task::by_project("p1"))
        .cursor(cursor)
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
}

/// `cursor` with one character changed (to another base64url character).
fn tamper(cursor: &str, at: usize) -> String {
    let mut chars: Vec<char> = cursor.chars().collect();
    chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

#[tokio::test]
async fn altered_and_foreign_cursors_are_refused() {
    let (t, _) = tasks_table().await;
    let c = &t.client;
    let f = Task::fields();
    let page = c.query(Task::by_project("p1").limit(5)).await.unwrap();
    let cursor = page.cursor.expect("more follow");
    let invalid = |result: Result<Vec<Task>, Error>| match result {
        Err(Error::InvalidCursor { .. }) => {}
        other => panic!("expected InvalidCursor, got {other:?}"),
    };

    // Altered anywhere: in the key, in the signature.
    for at in [3, cursor.len() / 2, cursor.len() - 3] {
        invalid(
            c.query(Task::by_project("p1"))
                .cursor(tamper(&cursor, at))
                .all()
                .await,
        );
    }
    invalid(
        c.query(Task::by_project("p1"))
            .cursor(&cursor[..cursor.len() - 1])
            .all()
            .await,
    );
    invalid(c.query(Task::by_project("p1")).cursor("!!!").all().await);
    invalid(c.query(Task::by_project("p1")).cursor("abc").all().await);

    // Another partition, another sort condition, filter, order or index.
    invalid(
        c.query(Task::by_project("p2"))
            .cursor(cursor.clone())
            .all()
            .await,
    );
    invalid(
        c.query(Task::by_project("p1").priority().gte(2))
            .cursor(cursor.clone())
            .all()
            .await,
    );
    invalid(
        c.query(Task::by_project("p1"))
            .filter(f.status.eq(Status::Open))
            .cursor(cursor.clone())
            .all()
            .await,
    );
    invalid(
        c.query(Task::by_project("p1").descending())
            .cursor(cursor.clone())
            .all()
            .await,
    );
    invalid(
        c.query(Task::by_assignee("odd"))
            .cursor(cursor.clone())
            .all()
            .await,
    );
    // Another table.
    let elsewhere = c.with_table(format!("{}-other", c.table()));
    let err = elsewhere
        .query(Task::by_project("p1"))
        .cursor(cursor.clone())
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
    // Streams and `.await` refuse it the same way, before any request.
    let err = c
        .query(Task::by_project("p2"))
        .cursor(cursor.clone())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
    let err = c
        .query(Task::by_project("p2"))
        .cursor(cursor.clone())
        .one()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");

    // An empty cursor starts from the beginning; the right query resumes.
    assert_eq!(
        c.query(Task::by_project("p1"))
            .cursor("")
            .all()
            .await
            .unwrap()
            .len(),
        27
    );
    assert_eq!(
        c.query(Task::by_project("p1"))
            .cursor(cursor)
            .all()
            .await
            .unwrap()
            .len(),
        22
    );
}

/// An entity whose sort keys fall inside `Order`'s: `ORDER#<day>#...` under
/// the same `USER#<id>` partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#{day}#note#{note_id}")]
struct OrderNote {
    user_id: String,
    day: String,
    note_id: String,
    text: String,
}

#[tokio::test]
async fn a_shared_partition_returns_only_the_queried_entity() {
    let t = table(&[Order::MODEL, OrderNote::MODEL, UserProfile::MODEL]).await;
    let c = &t.client;
    let mut batch = c.batch_write();
    let mut orders = Vec::new();
    for day in 1..=12 {
        let day = format!("2024-01-{day:02}");
        for n in 0..2 {
            let order = Order {
                user_id: "u1".into(),
                day: day.clone(),
                order_id: format!("o{n}"),
                total_cents: -(n as i64) * 100 + 250,
            };
            batch = batch.put(&order);
            orders.push(order);
            // Notes sort between the orders of the same day.
            batch = batch.put(&OrderNote {
                user_id: "u1".into(),
                day: day.clone(),
                note_id: format!("n{n}"),
                text: "a note".into(),
            });
        }
    }
    batch = batch.put(&UserProfile {
        user_id: UserId("u1".into()),
        email: "u1@example.test".into(),
        bio: None,
    });
    assert!(batch.await.unwrap().unprocessed.is_empty());
    orders.sort_by_key(|o| o.sk());

    let all = c.query(Order::primary("u1")).all().await.unwrap();
    assert_eq!(all, orders);
    let notes = c.query(OrderNote::primary("u1")).all().await.unwrap();
    assert_eq!(notes.len(), 24);
    let profile = c
        .query(UserProfile::primary(UserId("u1".into())))
        .all()
        .await
        .unwrap();
    assert_eq!(profile.len(), 1);

    // Limits count only the entity's items; cursors skip the others.
    let page = c.query(Order::primary("u1").limit(3)).await.unwrap();
    assert_eq!(page.items, orders[..3]);
    let got = by_cursor(5, |cursor| {
        c.query(Order::primary("u1").limit(5))
            .cursor(cursor.unwrap_or_default())
    })
    .await;
    assert_eq!(got, orders);
    let got = by_cursor(2, |cursor| {
        c.query(Order::primary("u1").descending())
            .page_size(2)
            .cursor(cursor.unwrap_or_default())
    })
    .await;
    let mut reversed = orders.clone();
    reversed.reverse();
    assert_eq!(got, reversed);
    let one = c.query(Order::primary("u1")).one().await.unwrap();
    assert_eq!(one.as_ref(), orders.first());

    // Narrowed by day, and a range of days.
    let day = c
        .query(Order::primary("u1").day().eq("2024-01-05"))
        .all()
        .await
        .unwrap();
    assert_eq!(day, orders[8..10]);
    let later = c
        .query(Order::primary("u1").day().gt("2024-01-10"))
        .all()
        .await
        .unwrap();
    assert_eq!(later, orders[20..]);
    let exact = c
        .query(
            Order::primary("u1")
                .day()
                .eq("2024-01-05")
                .order_id()
                .eq("o1"),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(exact, orders[9..10]);
}

#[tokio::test]
async fn consistent_reads_on_the_table_and_local_indexes() {
    let t = table(&[Entry::MODEL]).await;
    let c = &t.client;
    let at = |s: i64| chrono::Utc.timestamp_opt(1_700_000_000 + s, 0).unwrap();
    let deltas = [-50, 7, -3, 0, 120, -1, 4];
    let mut batch = c.batch_write();
    let mut entries = Vec::new();
    for (i, delta) in deltas.into_iter().enumerate() {
        let entry = Entry {
            account: "acc".into(),
            at: at(i as i64),
            delta,
        };
        batch = batch.put(&entry);
        entries.push(entry);
    }
    batch = batch.put(&Entry {
        account: "other".into(),
        at: at(0),
        delta: -9,
    });
    batch.await.unwrap();

    // The table, in time order.
    let all = c
        .query(Entry::primary("acc"))
        .consistent_read(true)
        .all()
        .await
        .unwrap();
    assert_eq!(all, entries);
    let since = c
        .query(Entry::primary("acc").at().gte(at(3)))
        .consistent_read(true)
        .all()
        .await
        .unwrap();
    assert_eq!(since, entries[3..]);

    // The local index orders signed numbers as numbers.
    let negative = c
        .query(Entry::by_delta("acc").delta().lt(0))
        .consistent_read(true)
        .all()
        .await
        .unwrap();
    let got: Vec<i32> = negative.iter().map(|e| e.delta).collect();
    assert_eq!(got, [-50, -3, -1]);
    let desc = c
        .query(Entry::by_delta("acc").delta().gte(0).descending().limit(2))
        .consistent_read(true)
        .all()
        .await
        .unwrap();
    let got: Vec<i32> = desc.iter().map(|e| e.delta).collect();
    assert_eq!(got, [120, 7]);
    // Cursors on a local index.
    let got = by_cursor(2, |cursor| {
        c.query(Entry::by_delta("acc").limit(2))
            .consistent_read(true)
            .cursor(cursor.unwrap_or_default())
    })
    .await;
    let mut by_delta = entries.clone();
    by_delta.sort_by_key(|e| e.delta);
    assert_eq!(got, by_delta);
    let range = c
        .query(Entry::by_delta("acc").delta().between(-3, 4))
        .all()
        .await
        .unwrap();
    let got: Vec<i32> = range.iter().map(|e| e.delta).collect();
    assert_eq!(got, [-3, -1, 0, 4]);
}

#[tokio::test]
async fn a_consistent_read_on_a_global_index_is_refused_before_sending() {
    let (t, _) = tasks_table().await;
    let err = t
        .client
        .query(Task::by_project("p1"))
        .consistent_read(true)
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Validation(ValidationError::ConsistentReadOnGlobalIndex { index }) if index == "gsi1"
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn bare_sort_keys_use_native_comparisons() {
    let t = table(&[UserProfile::MODEL]).await;
    let c = &t.client;
    let mut batch = c.batch_write();
    for (id, email) in [
        ("1", "ada@x.test"),
        ("2", "mia@x.test"),
        ("3", "zed@x.test"),
    ] {
        batch = batch.put(&UserProfile {
            user_id: UserId(id.into()),
            email: email.into(),
            bio: Some(format!("bio {id}")),
        });
    }
    batch.await.unwrap();
    settle(c, UserProfile::by_email(), 3).await;
    let after_m = c
        .query(UserProfile::by_email().email().gt("m"))
        .all()
        .await
        .unwrap();
    let emails: Vec<&str> = after_m.iter().map(|p| p.email.as_str()).collect();
    assert_eq!(emails, ["mia@x.test", "zed@x.test"]);
    let all = c.query(UserProfile::by_email()).all().await.unwrap();
    assert_eq!(all.len(), 3);
    let exact = c
        .query(UserProfile::by_email().email().eq("zed@x.test"))
        .one()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(exact.user_id, UserId("3".into()));
}

#[tokio::test]
async fn results_over_the_one_megabyte_page_limit() {
    // ~2.5 MB in one partition: every server splits it into several pages,
    // each where it likes. Only the items are asserted.
    let t = table(&[Task::MODEL]).await;
    let c = &t.client;
    let mut tasks = Vec::new();
    for i in 0..25u8 {
        let mut big = task(&format!("big-{i:02}"), "big", "e", i, Status::Open);
        big.title = format!("{i:02}").repeat(50 * 1024);
        tasks.push(big);
    }
    for chunk in tasks.chunks(5) {
        c.batch_write().put_all(chunk).await.unwrap();
    }
    let every: Vec<String> = ids(&tasks);
    settle(c, Task::by_project("big"), 25).await;

    let all = c.query(Task::by_project("big")).all().await.unwrap();
    assert_eq!(all, tasks);
    let page = c.query(Task::by_project("big")).await.unwrap();
    assert_eq!(ids(&page.items), every);
    let got = by_cursor(8, |cursor| {
        c.query(Task::by_project("big").limit(8))
            .cursor(cursor.unwrap_or_default())
    })
    .await;
    assert_eq!(ids(&got), every);
    let pages: Vec<_> = c
        .query(Task::by_project("big").descending())
        .pages()
        .try_collect()
        .await
        .unwrap();
    let mut reversed = every.clone();
    reversed.reverse();
    let from_pages: Vec<Task> = pages.into_iter().flat_map(|p| p.items).collect();
    assert_eq!(ids(&from_pages), reversed);
}

#[tokio::test]
async fn a_cursor_is_refused_by_a_filter_on_another_attribute() {
    let (t, _) = tasks_table().await;
    let c = &t.client;
    let f = Task::fields();
    // Both filters render as `#n.. = :v..` with the same value: only the
    // attribute names differ.
    let page = c
        .query(Task::by_project("p1").limit(3))
        .filter(f.title.ne("x"))
        .await
        .unwrap();
    let cursor = page.cursor.expect("more follow");
    let err = c
        .query(Task::by_project("p1").limit(3))
        .filter(f.employee_id.ne("x"))
        .cursor(cursor.clone())
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
    // The same filter resumes.
    let next = c
        .query(Task::by_project("p1").limit(3))
        .filter(f.title.ne("x"))
        .cursor(cursor)
        .await
        .unwrap();
    assert_eq!(next.items.len(), 3);
}

/// The `Limit` of each Query the recorder saw (`None`: no limit).
fn limits(recorder: &common::requests::Recorder) -> Vec<Option<String>> {
    recorder
        .sent("Query")
        .iter()
        .map(|sent| {
            let at = sent.body.find("\"Limit\":")? + "\"Limit\":".len();
            let digits: String = sent.body[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            Some(digits)
        })
        .collect()
}

#[tokio::test]
async fn one_with_a_filter_does_not_read_an_item_per_request() {
    let (t, p1) = tasks_table().await;
    let (c, recorder) = common::requests::recording(&t.client);
    let f = Task::fields();
    // Only one task of the partition matches.
    let last = &p1[p1.len() - 1];
    let found = c
        .query(Task::by_project("p1"))
        .filter(f.task_id.eq(last.task_id.as_str()))
        .one()
        .await
        .unwrap();
    assert_eq!(found.as_ref(), Some(last));
    // `Limit=1` before the filter took 27 requests; one page holds all 27.
    assert_eq!(limits(&recorder), [None]);
}

#[tokio::test]
async fn one_without_a_filter_reads_one_item() {
    let (t, _) = tasks_table().await;
    let (c, recorder) = common::requests::recording(&t.client);
    let first = c.query(Task::by_project("p1")).one().await.unwrap();
    let all = t.client.query(Task::by_project("p1")).all().await.unwrap();
    assert_eq!(first.as_ref(), all.first());
    assert_eq!(limits(&recorder), [Some("1".to_owned())]);
}

#[tokio::test]
async fn a_limit_past_i32_is_refused_not_wrapped() {
    let (t, _) = tasks_table().await;
    let c = &t.client;
    for request in [
        c.query(Task::by_project("p1").limit(u32::MAX)),
        c.query(Task::by_project("p1")).page_size(1 << 31),
    ] {
        // `u32 as i32` sent a negative Limit, which the server refused.
        let err = request.all().await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::Validation(ValidationError::OutOfRange {
                    max: 2147483647,
                    ..
                })
            ),
            "{err:?}"
        );
    }
    // The largest Limit DynamoDB takes is sent as is.
    let all = c
        .query(Task::by_project("p1"))
        .page_size(i32::MAX as u32)
        .all()
        .await
        .unwrap();
    assert_eq!(all.len(), 27);
}
