//! Review of the costs tracing spans carry: a client made from another
//! client's SDK client, and a tenant client's refused request.

use entity_client::{Client, Entity};
use entity_tests::harness::table;
use entity_tests::Order;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tracing_subscriber::fmt::format::FmtSpan;

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
    fn closed(&self, operation: &str) -> Vec<String> {
        let needle = format!("operation=\"{operation}\"");
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .filter(|l| l.contains(&needle) && l.contains("close"))
            .map(str::to_owned)
            .collect()
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
