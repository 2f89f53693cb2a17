//! With the `tracing` feature, every operation runs in a span naming the
//! operation, entity, table and index, with its outcome and what its
//! requests cost: requests, retries, capacity units, items; counted once
//! per request, also on a client made from another client's SDK client,
//! and not for a request the tenant check refused.

use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, Entity};
use entity_tests::harness::{fast_sdk, table};
use entity_tests::Order;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tracing_subscriber::fmt::format::FmtSpan;

/// What the subscriber wrote.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("buffer").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A subscriber writing closed spans (with their fields) to a buffer.
fn recording() -> (Buffer, tracing::subscriber::DefaultGuard) {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(false)
        .finish();
    (buffer, tracing::subscriber::set_default(subscriber))
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// The closing lines of the spans of `operation`.
    fn closed(&self, operation: &str) -> Vec<String> {
        let needle = format!("operation=\"{operation}\"");
        self.text()
            .lines()
            .filter(|l| l.contains(&needle) && l.contains("close"))
            .map(str::to_owned)
            .collect()
    }

    /// The closing line of the first span of `operation`.
    fn span_of(&self, operation: &str) -> String {
        let closed = self.closed(operation);
        match closed.first() {
            Some(line) => line.clone(),
            None => panic!("no closed {operation} span in {}", self.text()),
        }
    }
}

fn order(id: &str) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents: 1,
    }
}

#[tokio::test]
async fn operations_run_in_spans_with_their_outcome() {
    let (buffer, _guard) = recording();
    let t = table(&[Order::MODEL]).await;
    let o = Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: "o1".into(),
        total_cents: 1,
    };

    t.client.create(&o).await.unwrap();
    let _ = t.client.create(&o).await.unwrap_err();
    t.client.query(Order::primary("u1")).await.unwrap();

    let log = buffer.text();
    let table = t.client.table();
    assert!(
        log.contains(&format!(
            "operation=\"create\" entity=\"Order\" table=\"{table}\""
        )),
        "{log}"
    );
    assert!(log.contains("outcome=\"ok\""), "{log}");
    assert!(log.contains("outcome=\"error\""), "{log}");
    assert!(log.contains("operation=\"query\""), "{log}");
    assert!(
        log.contains("time.busy"),
        "closed spans carry their latency: {log}"
    );
}

#[tokio::test]
async fn spans_carry_requests_items_and_capacity() {
    let (buffer, _guard) = recording();
    let t = table(&[Order::MODEL]).await;
    let orders: Vec<Order> = (0..30).map(|i| order(&format!("o{i:02}"))).collect();
    t.client.batch_write().put_all(&orders).await.unwrap();
    t.client.query(Order::primary("u1")).await.unwrap();

    let write = buffer.span_of("batch_write");
    // 30 items go in two BatchWriteItem requests of at most 25.
    assert!(write.contains("requests=2 retries=0"), "{write}");
    let query = buffer.span_of("query");
    assert!(query.contains("requests=1 retries=0"), "{query}");
    assert!(query.contains("items=30 scanned=30"), "{query}");
    // DynamoDB reports the capacity the span asked for (both servers do):
    // 30 small items read eventually consistent are well under 1 RCU * 30.
    let units: f64 = field(&query, "read_units").parse().unwrap();
    assert!(units > 0.0 && units < 30.0, "{query}");
    let written: f64 = field(&write, "write_units").parse().unwrap();
    assert!(written >= 30.0, "one WCU per small item: {write}");
}

#[tokio::test]
async fn spans_count_retries() {
    let (buffer, _guard) = recording();
    let t = table(&[Order::MODEL]).await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let client = Client::new(
        fast_sdk(proxy.endpoint(), "tracing-retries"),
        t.client.table(),
    );
    proxy.faults().script(
        Operation::GetItem,
        [Fault::Throttling, Fault::ServerErrorBeforeApplying],
    );
    client.create(&order("o1")).await.unwrap();
    let got = client
        .get(Order::key("u1", "2024-01-15", "o1"))
        .await
        .unwrap();
    assert_eq!(got, Some(order("o1")));

    let get = buffer.span_of("get");
    assert!(get.contains("requests=1 retries=2"), "{get}");
    assert!(get.contains("items=1"), "{get}");
}

/// The value of `name=` in a span line.
fn field<'a>(line: &'a str, name: &str) -> &'a str {
    let start = line
        .find(&format!("{name}="))
        .unwrap_or_else(|| panic!("no {name} in {line}"))
        + name.len()
        + 1;
    line[start..].split(' ').next().unwrap_or("")
}

/// `Client::new(other.sdk().clone(), ..)` (a second table on the same
/// connections): one GetItem is one request, one item.
#[tokio::test]
async fn a_client_made_from_another_clients_sdk_counts_each_request_once() {
    let t = table(&[Order::MODEL]).await;
    t.client.create(&order("o1")).await.unwrap();
    let second = Client::new(t.client.sdk().clone(), t.client.table());
    let (buffer, _guard) = recording();
    let got = second
        .get(Order::key("u1", "2024-01-15", "o1"))
        .await
        .unwrap();
    assert_eq!(got, Some(order("o1")));
    let get = buffer.closed("get");
    assert_eq!(get.len(), 1, "{get:?}");
    assert!(get[0].contains("requests=1 retries=0"), "{}", get[0]);
    assert!(get[0].contains("items=1 "), "{}", get[0]);
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", tenant = tenant_id)]
#[pk(tenant_id)]
#[sk(id)]
struct Item {
    tenant_id: String,
    id: String,
}

/// A request the tenant check refuses is never sent: the span counts no
/// request for it.
#[tokio::test]
async fn a_refused_tenant_request_is_not_counted_as_sent() {
    let t = table(&[Item::MODEL]).await;
    let a = t.client.tenant("t-a");
    let (buffer, _guard) = recording();
    let error = a.get(Item::key("t-b", "i1")).await.unwrap_err();
    assert!(
        matches!(error, entity_client::Error::TenantMismatch { .. }),
        "{error:?}"
    );
    let get = buffer.closed("get");
    assert_eq!(get.len(), 1, "{get:?}");
    assert!(get[0].contains("requests=0 retries=0"), "{}", get[0]);
}

/// `query(..).all()`, the usual way to read a query, is an operation too:
/// it runs in a span with its requests and items.
#[tokio::test]
async fn a_query_read_with_all_runs_in_a_span() {
    let t = table(&[Order::MODEL]).await;
    t.client.create(&order("o1")).await.unwrap();
    t.client.create(&order("o2")).await.unwrap();
    let (buffer, _guard) = recording();
    let all = t.client.query(Order::primary("u1")).all().await.unwrap();
    assert_eq!(all.len(), 2);
    let query = buffer.closed("query");
    assert_eq!(query.len(), 1, "{query:?}");
    assert!(query[0].contains("requests=1 retries=0"), "{}", query[0]);
    assert!(query[0].contains("items=2 "), "{}", query[0]);
}

/// `query(..).pages()` and `.items()` are operations too: the stream runs
/// in one span, which records the outcome when the stream ends (`ok`), or
/// `stopped` when it is dropped first, with the requests made so far.
#[tokio::test]
async fn a_query_read_as_a_stream_runs_in_one_span() {
    use futures::{StreamExt, TryStreamExt};
    let t = table(&[Order::MODEL]).await;
    let orders: Vec<Order> = (0..25).map(|i| order(&format!("o{i:02}"))).collect();
    t.client.batch_write().put_all(&orders).await.unwrap();
    let (buffer, _guard) = recording();

    let pages: Vec<_> = t
        .client
        .query(Order::primary("u1"))
        .page_size(10)
        .pages()
        .try_collect()
        .await
        .unwrap();
    let read: usize = pages.iter().map(|p| p.items.len()).sum();
    assert_eq!(read, 25);
    let query = buffer.closed("query");
    assert_eq!(query.len(), 1, "{query:?}");
    assert!(query[0].contains("outcome=\"ok\""), "{}", query[0]);
    assert!(query[0].contains("items=25 "), "{}", query[0]);
    let requests: u64 = field(&query[0], "requests").parse().unwrap();
    assert!(requests >= 3, "pages of 10: {}", query[0]);

    // Three items of a stream, then dropped: one page of 10 was read.
    let first: Vec<Order> = t
        .client
        .query(Order::primary("u1"))
        .page_size(10)
        .items()
        .take(3)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(first, orders[..3].to_vec());
    let query = buffer.closed("query");
    assert_eq!(query.len(), 2, "{query:?}");
    assert!(query[1].contains("outcome=\"stopped\""), "{}", query[1]);
    assert!(query[1].contains("requests=1 "), "{}", query[1]);
    assert!(query[1].contains("items=10 "), "{}", query[1]);

    // A parallel scan's items: one span for every segment's requests.
    let scanned: Vec<Order> = t
        .client
        .scan::<Order>()
        .segments(3)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(scanned.len(), 25);
    let scan = buffer.closed("scan");
    assert_eq!(scan.len(), 1, "{scan:?}");
    assert!(scan[0].contains("outcome=\"ok\""), "{}", scan[0]);
    let items: u64 = field(&scan[0], "items").parse().unwrap();
    assert_eq!(items, 25, "{}", scan[0]);
}

/// A versioned entity with history.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", history)]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    body: String,
    #[entity(version)]
    version: u64,
}

/// Every builder runs in a span named for its operation: `create_table`,
/// `history` (awaited, or read with `all`, `latest` or `version`), a
/// projected `get`, and `migrate` included.
#[tokio::test]
async fn every_builder_runs_in_a_span_named_for_it() {
    let t = entity_tests::harness::connect().await;
    let c = &t.client;
    let (buffer, _guard) = recording();

    c.create_table(&[Doc::MODEL]).await.unwrap();
    let create_table = buffer.span_of("create_table");
    assert!(create_table.contains("outcome=\"ok\""), "{create_table}");
    let requests: u64 = field(&create_table, "requests").parse().unwrap();
    assert!(requests >= 2, "CreateTable, DescribeTable: {create_table}");

    let doc = Doc {
        id: "d1".into(),
        body: "one".into(),
        version: 0,
    };
    let doc = c.create(&doc).await.unwrap();
    c.put(&Doc {
        body: "two".into(),
        ..doc
    })
    .await
    .unwrap();

    let key = || Doc::key("d1");
    assert_eq!(c.history(key()).await.unwrap().len(), 2);
    assert_eq!(c.history(key()).all().await.unwrap().len(), 2);
    assert!(c.history(key()).latest().await.unwrap().is_some());
    assert!(c.history(key()).version(1).await.unwrap().is_some());
    let history = buffer.closed("history");
    assert_eq!(history.len(), 4, "{history:?}");
    // The stored item's version, then the Query (or the snapshot's
    // GetItem): only snapshots up to it are the item's own.
    for span in &history {
        assert!(span.contains("requests=2 retries=0"), "{span}");
        assert!(span.contains("entity=\"Doc\""), "{span}");
    }

    let f = Doc::fields();
    let projected = c.get(key()).project([f.body.name()]).await.unwrap();
    assert_eq!(projected.unwrap().get(f.body).unwrap(), "two");
    let get = buffer.closed("get");
    assert_eq!(get.len(), 1, "{get:?}");
    assert!(get[0].contains("requests=1 retries=0"), "{}", get[0]);
    assert!(get[0].contains("items=1 "), "{}", get[0]);

    let report = c.migrate::<Doc>().await.unwrap();
    assert!(report.checkpoint.is_complete());
    let migrate = buffer.span_of("migrate");
    assert!(migrate.contains("outcome=\"ok\""), "{migrate}");
    let requests: u64 = field(&migrate, "requests").parse().unwrap();
    assert!(requests >= 1, "at least one Scan: {migrate}");
}
