//! With the `tracing` feature, every operation runs in a span naming the
//! operation, entity, table and index, with its outcome.

use entity_client::Entity;
use entity_tests::harness::table;
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

#[tokio::test]
async fn operations_run_in_spans_with_their_outcome() {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
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

    let log = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
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
