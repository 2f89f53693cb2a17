//! With the `tracing` feature, every operation runs in a span naming the
//! operation, entity, table and index, with its outcome and what its
//! requests cost: requests, retries, capacity units, items.

use entity_client::{Client, Entity};
use entity_tests::fault_proxy::{Fault, FaultProxy};
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

    /// The closing line of the first span of `operation`.
    fn span_of(&self, operation: &str) -> String {
        let needle = format!("operation=\"{operation}\"");
        let text = self.text();
        text.lines()
            .find(|l| l.contains(&needle) && l.contains("close"))
            .unwrap_or_else(|| panic!("no closed {operation} span in {text}"))
            .to_owned()
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
    let proxy = FaultProxy::start(&t.endpoint()).await;
    let client = Client::new(
        fast_sdk(proxy.endpoint(), "tracing-retries"),
        t.client.table(),
    );
    proxy.script(
        "GetItem",
        [Fault::Throttling, Fault::ServerErrorBeforeForwarding],
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
