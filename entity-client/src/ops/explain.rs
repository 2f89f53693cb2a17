//! `explain()`: the exact request a builder would send, without sending it
//! (ElectroDB's `.params()`).
//!
//! The builder runs as it would, through an SDK client whose interceptor
//! records each request as serialized for the wire (operation, and the JSON
//! body with its expressions, placeholders, names, values and keys) and
//! stops it before it is transmitted. The reads a write needs first (the
//! stored item a put of an entity with unique constraints reads), and the
//! stored item's version a history read starts with, are sent for real, so
//! the request explained is the one that would follow them.

use super::operation::Operation;
use super::BoxFuture;
use crate::error::Result;
use crate::Client;
use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use std::fmt;
use std::sync::{Arc, Mutex};

/// One request as it would go over the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The operation (`PutItem`, `TransactWriteItems`, `Query`, ...).
    pub operation: String,
    /// The JSON body, exactly as serialized.
    pub body: String,
}

impl Request {
    /// The body parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// What a builder would send: its requests, in order (a batch has one per
/// chunk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    /// The requests, as serialized.
    pub requests: Vec<Request>,
}

impl Explained {
    /// The first request: for most builders, the only one.
    pub fn request(&self) -> Option<&Request> {
        self.requests.first()
    }
}

impl fmt::Display for Explained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for request in &self.requests {
            let pretty = serde_json::to_string_pretty(&request.json())
                .unwrap_or_else(|_| request.body.clone());
            writeln!(f, "{}\n{pretty}", request.operation)?;
        }
        Ok(())
    }
}

/// Records requests and stops the ones it must not let through.
#[derive(Debug, Clone, Default)]
struct Capture {
    requests: Arc<Mutex<Vec<Request>>>,
}

/// Reads an operation may send for real before the request it explains.
const PREPARATORY_READS: [&str; 1] = ["GetItem"];

/// The stop of a captured request (never seen by callers of `explain`).
#[derive(Debug)]
struct Explaining;

impl fmt::Display for Explaining {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not sent: explained")
    }
}

impl std::error::Error for Explaining {}

#[derive(Debug, Clone)]
struct CaptureInterceptor {
    capture: Capture,
    /// Let the reads a write needs through.
    pass_reads: bool,
}

impl Intercept for CaptureInterceptor {
    fn name(&self) -> &'static str {
        "Explain"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> std::result::Result<(), BoxError> {
        let request = context.request();
        let target = request.headers().get("x-amz-target").unwrap_or_default();
        let operation = target.rsplit('.').next().unwrap_or_default().to_owned();
        if self.pass_reads && PREPARATORY_READS.contains(&operation.as_str()) {
            return Ok(());
        }
        let body = request.body().bytes().unwrap_or_default();
        let body = String::from_utf8_lossy(body).into_owned();
        if let Ok(mut requests) = self.capture.requests.lock() {
            requests.push(Request { operation, body });
        }
        Err(Box::new(Explaining))
    }
}

impl Client {
    /// This client, through an SDK client that captures requests instead of
    /// sending them.
    fn explaining(&self, pass_reads: bool) -> (Client, Capture) {
        let capture = Capture::default();
        let interceptor = CaptureInterceptor {
            capture: capture.clone(),
            pass_reads,
        };
        (self.intercepted(interceptor, |_| {}), capture)
    }
}

/// Builders that can say what they would send. Implemented by every
/// operation builder (as it is awaited, through the same run: see
/// `ops/operation.rs`).
///
/// ```no_run
/// # use entity_client::{Client, Entity, Explain};
/// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, views: u32 }
/// # async fn demo(client: Client, doc: Doc) -> entity_client::Result<()> {
/// let explained = client.put(&doc).explain().await?;
/// println!("{explained}"); // PutItem and its JSON body
/// # Ok(()) }
/// ```
pub trait Explain: Sized {
    /// The requests the builder would send, without sending them; an error
    /// the builder would fail with before sending (a DynamoDB limit, a bad
    /// value) is returned as such.
    fn explain(self) -> BoxFuture<'static, Result<Explained>>;
}

/// What [`Explain::explain`] does for every operation (`operation!`
/// implements the trait with it).
pub(crate) fn explain<O: Operation>(mut operation: O) -> BoxFuture<'static, Result<Explained>> {
    let (client, capture) = operation.client_mut().explaining(O::READS_FIRST);
    *operation.client_mut() = client;
    Box::pin(async move {
        let outcome = super::operation::run(operation).await;
        let requests = capture
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default();
        match outcome {
            Err(error) if requests.is_empty() => Err(error),
            _ => Ok(Explained { requests }),
        }
    })
}
