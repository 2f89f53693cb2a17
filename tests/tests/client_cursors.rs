//! Cursors against a server: sealed (a cursor shows none of the key values
//! it holds), unforgeable (any altered byte, another query's or another
//! secret's cursor is `Error::InvalidCursor`), paging with them reads every
//! item once; and a read whose page fails past the SDK's retries (through
//! the fault proxy) carries the cursor that resumes it exactly after the
//! last item delivered, for `items`, `pages`, `all` and one page, of queries
//! and scans.

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use common::task;
use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, Entity, Error, Page};
use entity_tests::harness::{table, TestTable};
use entity_tests::{Order, Status, Task};
use futures::{Stream, StreamExt, TryStreamExt};

/// Attempts the SDK makes per request in the fault tests (its default is 3).
const SDK_ATTEMPTS: usize = entity_tests::harness::FAST_SDK_ATTEMPTS as usize;
/// Orders in the fault tests' partition: four pages of ten.
const ORDERS: usize = 35;
const PAGE: u32 = 10;

fn order(i: usize) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: format!("o{i:02}"),
        total_cents: i64::try_from(i).unwrap(),
    }
}

fn order_ids(orders: &[Order]) -> Vec<String> {
    orders.iter().map(|o| o.order_id.clone()).collect()
}

/// Every order id, once each: no item twice, none skipped.
fn assert_every_order_once(mut read: Vec<String>) {
    read.sort();
    let want: Vec<String> = (0..ORDERS).map(|i| order(i).order_id).collect();
    assert_eq!(read, want, "every item exactly once");
}

async fn orders_table() -> TestTable {
    let t = table(&[Order::MODEL]).await;
    let orders: Vec<Order> = (0..ORDERS).map(order).collect();
    let out = t.client.batch_write().put_all(&orders).await.unwrap();
    assert!(out.unprocessed.is_empty());
    t
}

/// The string values of `item`'s key attributes (table and indexes) long
/// enough that random bytes never hold them by chance.
fn key_values(item: &entity_client::Item) -> Vec<String> {
    ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"]
        .iter()
        .filter_map(|name| match item.get(*name) {
            Some(AttributeValue::S(value)) if value.len() >= 6 => Some(value.clone()),
            _ => None,
        })
        .collect()
}

fn assert_reveals_none(cursor: &str, values: &[String]) {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).expect("URL-safe base64");
    assert!(
        !cursor.contains(['=', '+', '/']),
        "URL-safe, unpadded: {cursor}"
    );
    assert!(!values.is_empty());
    for value in values {
        let found = bytes.windows(value.len()).any(|w| w == value.as_bytes());
        assert!(!found, "{value:?} readable in the cursor {cursor}");
    }
}

#[tokio::test]
async fn a_cursor_reveals_no_key_value() {
    let t = table(&[Task::MODEL]).await;
    let tasks: Vec<Task> = (0..12)
        .map(|i| task(&format!("secret-task-{i:02}"), "p1", "e1", 3, Status::Open))
        .collect();
    t.client.batch_write().put_all(&tasks).await.unwrap();
    common::eventually(12, || async {
        let all = t.client.query(Task::by_project("p1")).all().await.unwrap();
        all.len()
    })
    .await;

    // A GSI cursor holds the index keys and the table keys of the last item.
    let page = t
        .client
        .query(Task::by_project("p1").limit(5))
        .await
        .unwrap();
    let last = page.items.last().unwrap().to_item().unwrap();
    let values = key_values(&last);
    assert!(values.len() >= 3, "{values:?}");
    assert_reveals_none(&page.cursor.unwrap(), &values);

    let o = orders_table().await;
    let page = o.client.scan::<Order>().limit(5).await.unwrap();
    let last = page.items.last().unwrap().to_item().unwrap();
    assert_reveals_none(&page.cursor.unwrap(), &key_values(&last));

    // Two cursors of the same position differ (a fresh nonce each) and both
    // resume there.
    let one = o.client.query(Order::primary("u1").limit(5)).await.unwrap();
    let two = o.client.query(Order::primary("u1").limit(5)).await.unwrap();
    let (one, two) = (one.cursor.unwrap(), two.cursor.unwrap());
    assert_ne!(one, two);
    for cursor in [one, two] {
        let rest = o
            .client
            .query(Order::primary("u1"))
            .cursor(cursor)
            .all()
            .await
            .unwrap();
        assert_eq!(rest.len(), ORDERS - 5);
    }
}

fn invalid<T: std::fmt::Debug>(result: Result<T, Error>, what: &str) {
    match result {
        Err(Error::InvalidCursor { .. }) => {}
        other => panic!("{what}: expected InvalidCursor, got {other:?}"),
    }
}

#[tokio::test]
async fn any_altered_byte_is_refused() {
    let t = orders_table().await;
    let c = &t.client;
    let query_cursor = c
        .query(Order::primary("u1").limit(5))
        .await
        .unwrap()
        .cursor
        .unwrap();
    let scan_cursor = c.scan::<Order>().limit(5).await.unwrap().cursor.unwrap();
    for (cursor, is_query) in [(query_cursor, true), (scan_cursor, false)] {
        let bytes = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        let mut altered: Vec<Vec<u8>> = (0..bytes.len())
            .map(|at| {
                let mut altered = bytes.clone();
                altered[at] ^= 0x01;
                altered
            })
            .collect();
        altered.push(bytes[..bytes.len() - 1].to_vec());
        altered.push([bytes.as_slice(), b"x"].concat());
        for (at, altered) in altered.into_iter().enumerate() {
            let altered = URL_SAFE_NO_PAD.encode(altered);
            let what = format!("byte {at}");
            if is_query {
                let read = c.query(Order::primary("u1")).cursor(altered).await;
                invalid(read, &what);
            } else {
                invalid(c.scan::<Order>().cursor(altered).await, &what);
            }
        }
        invalid(
            c.query(Order::primary("u1")).cursor("not a cursor").await,
            "text",
        );
    }
}

#[tokio::test]
async fn a_cursor_of_another_query_or_secret_is_refused() {
    let t = orders_table().await;
    let ours = t.client.clone().with_cursor_secret("one secret");
    let cursor = ours
        .query(Order::primary("u1").limit(5))
        .await
        .unwrap()
        .cursor
        .unwrap();
    let f = Order::fields();

    // The same query resumes; another query, order, filter, entity or
    // secret does not.
    let rest = ours
        .query(Order::primary("u1"))
        .cursor(cursor.clone())
        .all()
        .await
        .unwrap();
    assert_eq!(rest.len(), ORDERS - 5);
    invalid(
        ours.query(Order::primary("u2"))
            .cursor(cursor.clone())
            .await,
        "another partition",
    );
    invalid(
        ours.query(Order::primary("u1").descending())
            .cursor(cursor.clone())
            .await,
        "another order",
    );
    invalid(
        ours.query(Order::primary("u1"))
            .filter(f.total_cents.gt(3i64))
            .cursor(cursor.clone())
            .await,
        "another filter",
    );
    invalid(ours.scan::<Order>().cursor(cursor.clone()).await, "a scan");
    invalid(
        ours.query(Task::by_project("p1"))
            .cursor(cursor.clone())
            .await,
        "another entity",
    );
    let other = t.client.clone().with_cursor_secret("another secret");
    invalid(
        other
            .query(Order::primary("u1"))
            .cursor(cursor.clone())
            .await,
        "another secret",
    );
    invalid(
        t.client.query(Order::primary("u1")).cursor(cursor).await,
        "the default secret",
    );
}

#[tokio::test]
async fn paging_a_query_and_a_scan_with_cursors_reads_every_item_once() {
    let t = orders_table().await;
    let c = &t.client;
    for is_query in [true, false] {
        let mut read = Vec::new();
        let mut cursor = String::new();
        loop {
            let page = match is_query {
                true => c.query(Order::primary("u1").limit(4)).cursor(&cursor).await,
                false => c.scan::<Order>().limit(4).cursor(&cursor).await,
            }
            .unwrap();
            assert!(page.items.len() <= 4);
            read.extend(order_ids(&page.items));
            match page.cursor {
                Some(next) => cursor = next,
                None => break,
            }
        }
        assert_every_order_once(read);
    }
}

// ---- resuming after a failed page -------------------------------------------

/// A table of orders, a fault proxy in front of its server, and a client
/// through the proxy with fast retries.
struct Faulty {
    _table: TestTable,
    proxy: FaultProxy,
    client: Client,
}

async fn faulty() -> Faulty {
    let table = orders_table().await;
    let proxy = FaultProxy::start(&table.endpoint()).await.unwrap();
    let name = table.client.table().to_owned();
    let client = Client::new(
        entity_tests::harness::fast_sdk(proxy.endpoint(), &name),
        name,
    );
    Faulty {
        _table: table,
        proxy,
        client,
    }
}

/// `forwarded` requests of `operation` go through, then the next fails with
/// 500s on every one of the SDK's attempts.
fn fail_after(proxy: &FaultProxy, operation: Operation, forwarded: usize) {
    let mut faults = vec![Fault::Pass; forwarded];
    faults.extend([Fault::ServerErrorBeforeApplying; SDK_ATTEMPTS]);
    proxy.faults().script(operation, faults);
}

/// The resume cursor of a page that failed past the SDK's retries.
fn resume_cursor(error: Error) -> String {
    match error {
        Error::PageFailed { cursor, source } => {
            assert!(matches!(*source, Error::Service { .. }), "{source:?}");
            cursor
        }
        other => panic!("expected PageFailed, got {other:?}"),
    }
}

/// Reads `stream` up to its error: what it yielded, and the error.
async fn until_error<T>(stream: impl Stream<Item = Result<T, Error>>) -> (Vec<T>, Error) {
    futures::pin_mut!(stream);
    let mut read = Vec::new();
    while let Some(next) = stream.next().await {
        match next {
            Ok(value) => read.push(value),
            Err(error) => return (read, error),
        }
    }
    panic!("the stream ended without the scripted failure");
}

/// Items stream of the query or scan over the orders, from `cursor`.
fn items(c: &Client, is_query: bool, cursor: &str) -> impl Stream<Item = Result<Order, Error>> {
    match is_query {
        true => c
            .query(Order::primary("u1"))
            .page_size(PAGE)
            .cursor(cursor)
            .items()
            .boxed(),
        false => c
            .scan::<Order>()
            .page_size(PAGE)
            .cursor(cursor)
            .items()
            .boxed(),
    }
}

fn pages(
    c: &Client,
    is_query: bool,
    cursor: &str,
) -> impl Stream<Item = Result<Page<Order>, Error>> {
    match is_query {
        true => c
            .query(Order::primary("u1"))
            .page_size(PAGE)
            .cursor(cursor)
            .pages()
            .boxed(),
        false => c
            .scan::<Order>()
            .page_size(PAGE)
            .cursor(cursor)
            .pages()
            .boxed(),
    }
}

async fn all(c: &Client, is_query: bool, cursor: &str) -> Result<Vec<Order>, Error> {
    match is_query {
        true => {
            c.query(Order::primary("u1"))
                .page_size(PAGE)
                .cursor(cursor)
                .all()
                .await
        }
        false => c.scan::<Order>().page_size(PAGE).cursor(cursor).all().await,
    }
}

fn operation(is_query: bool) -> Operation {
    if is_query {
        Operation::Query
    } else {
        Operation::Scan
    }
}

#[tokio::test]
async fn an_items_stream_resumes_after_the_last_item_delivered() {
    for is_query in [true, false] {
        let f = faulty().await;
        let op = operation(is_query);
        fail_after(&f.proxy, op, 2);

        let (first, error) = until_error(items(&f.client, is_query, "")).await;
        // Two pages of ten were delivered, item by item.
        assert_eq!(first.len(), 2 * PAGE as usize, "{op}");
        assert_eq!(
            f.proxy.faults().counts(op).received,
            2 + SDK_ATTEMPTS,
            "{op}"
        );
        let cursor = error.resume_cursor().unwrap().to_owned();
        assert_eq!(resume_cursor(error), cursor);

        let rest: Vec<Order> = items(&f.client, is_query, &cursor)
            .try_collect()
            .await
            .unwrap();
        assert_every_order_once([order_ids(&first), order_ids(&rest)].concat());
    }
}

#[tokio::test]
async fn a_pages_stream_resumes_after_the_last_page_delivered() {
    for is_query in [true, false] {
        let f = faulty().await;
        let op = operation(is_query);
        fail_after(&f.proxy, op, 1);

        let (first, error) = until_error(pages(&f.client, is_query, "")).await;
        assert_eq!(first.len(), 1, "{op}");
        let cursor = resume_cursor(error);
        // The cursor resumes where the last page's own cursor does.
        let rest: Vec<Page<Order>> = pages(&f.client, is_query, &cursor)
            .try_collect()
            .await
            .unwrap();
        let read: Vec<String> = first
            .iter()
            .chain(&rest)
            .flat_map(|page| order_ids(&page.items))
            .collect();
        assert_every_order_once(read);

        // A failure again, in the resumed stream, resumes it again.
        fail_after(&f.proxy, op, 1);
        let (second, error) = until_error(pages(&f.client, is_query, &cursor)).await;
        let third: Vec<Page<Order>> = pages(&f.client, is_query, &resume_cursor(error))
            .try_collect()
            .await
            .unwrap();
        let read: Vec<String> = first
            .iter()
            .chain(&second)
            .chain(&third)
            .flat_map(|page| order_ids(&page.items))
            .collect();
        assert_every_order_once(read);
    }
}

#[tokio::test]
async fn all_and_one_page_resume_where_they_began() {
    for is_query in [true, false] {
        let f = faulty().await;
        let op = operation(is_query);
        let c = &f.client;
        // One page of ten, read cleanly.
        let first = match is_query {
            true => c.query(Order::primary("u1").limit(PAGE)).await,
            false => c.scan::<Order>().limit(PAGE).await,
        }
        .unwrap();
        let start = first.cursor.clone().unwrap();

        // `all` from that cursor reads a page, then fails: it delivered
        // nothing, so it resumes at the cursor it was given.
        fail_after(&f.proxy, op, 1);
        let cursor = resume_cursor(all(c, is_query, &start).await.unwrap_err());
        let rest = all(c, is_query, &cursor).await.unwrap();
        assert_every_order_once([order_ids(&first.items), order_ids(&rest)].concat());

        // One page of twenty by `.await`, in requests of ten: the same.
        fail_after(&f.proxy, op, 1);
        let failed = match is_query {
            true => {
                c.query(Order::primary("u1").limit(2 * PAGE))
                    .page_size(PAGE)
                    .cursor(&start)
                    .await
            }
            false => {
                c.scan::<Order>()
                    .limit(2 * PAGE)
                    .page_size(PAGE)
                    .cursor(&start)
                    .await
            }
        };
        let cursor = resume_cursor(failed.unwrap_err());
        let rest = all(c, is_query, &cursor).await.unwrap();
        assert_every_order_once([order_ids(&first.items), order_ids(&rest)].concat());

        // A read that fails at its very beginning returns the error as it
        // is: sending it again is the resume.
        fail_after(&f.proxy, op, 0);
        let error = all(c, is_query, "").await.unwrap_err();
        assert!(matches!(error, Error::Service { .. }), "{error:?}");
        assert_eq!(error.resume_cursor(), None);
    }
}

#[tokio::test]
async fn a_parallel_scan_has_no_resume_cursor() {
    let f = faulty().await;
    // Each segment's first page goes through; every request after fails.
    f.proxy.faults().script(Operation::Scan, [Fault::Pass; 2]);
    f.proxy.faults().script(
        Operation::Scan,
        [Fault::ServerErrorBeforeApplying; 4 * SDK_ATTEMPTS],
    );
    let error = f
        .client
        .scan::<Order>()
        .segments(2)
        .page_size(2)
        .all()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Service { .. }), "{error:?}");
    assert_eq!(error.resume_cursor(), None);
}
