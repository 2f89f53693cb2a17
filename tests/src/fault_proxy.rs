//! A fault-injecting HTTP/1.1 proxy on `127.0.0.1`, so the client's retry
//! paths are tested rather than assumed.
//!
//! The proxy sits between the SDK and the test endpoint (the embedded server,
//! or `ENTITY_TEST_ENDPOINT`) and forwards every request unchanged, except
//! the ones a test scripted a [`Fault`] for. Faults are chosen per DynamoDB
//! operation (the `X-Amz-Target` header, `DynamoDB_20120810.PutItem` is
//! `"PutItem"`) and consumed in arrival order: after
//! `proxy.script("BatchWriteItem", [Fault::Throttling; 2])` the next two
//! BatchWriteItem requests are throttled and the third is forwarded.
//!
//! The proxy counts requests per operation ([`Counts`]), so a test can check
//! that the retries it expects did happen, and how many batch items reached
//! the server.
//!
//! A metering proxy ([`FaultProxy::start_metering`]) also asks the server
//! for the capacity each request consumes (it adds
//! `"ReturnConsumedCapacity": "TOTAL"` to requests that take it, and the
//! body signature it breaks is not checked by local servers) and sums the
//! `ConsumedCapacity` of the answers per operation ([`Capacity`]), so a
//! benchmark can say what a write costs without the client asking.
//!
//! ```no_run
//! # async fn demo(upstream: &str) {
//! use entity_tests::fault_proxy::{Fault, FaultProxy};
//! let proxy = FaultProxy::start(upstream).await;
//! proxy.script("PutItem", [Fault::ServerErrorAfterForwarding]);
//! // ... point an SDK client at proxy.endpoint() and put an item ...
//! assert_eq!(proxy.counts("PutItem").forwarded, 2); // applied, then retried
//! # }
//! ```

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the proxy does with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Forward it unchanged (to script a fault after some clean requests).
    Forward,
    /// Answer 400 `ProvisionedThroughputExceededException`, not forwarded.
    ProvisionedThroughputExceeded,
    /// Answer 400 `ThrottlingException`, not forwarded.
    Throttling,
    /// Answer 500 `InternalServerError`, not forwarded: nothing happened.
    ServerErrorBeforeForwarding,
    /// Forward it, then answer 500 `InternalServerError` instead of the
    /// server's answer: the request was applied, the client cannot know.
    ServerErrorAfterForwarding,
    /// Close the connection without answering, not forwarded.
    DropBeforeForwarding,
    /// Forward it, then close the connection without answering.
    DropAfterForwarding,
    /// For BatchWriteItem and BatchGetItem: forward only the first `forward`
    /// requests or keys (in table-name order, then request order) and answer
    /// with the server's response plus the rest as `UnprocessedItems` or
    /// `UnprocessedKeys`. The rest never reach the server.
    PartialBatch {
        /// How many requests or keys to forward.
        forward: usize,
    },
    /// Hold the request this long, then forward it: what another writer
    /// does meanwhile lands between the client's read and this write.
    Delay(std::time::Duration),
}

/// What the proxy saw of one operation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Requests that arrived.
    pub received: usize,
    /// Requests that reached the server, whole or in part.
    pub forwarded: usize,
    /// Puts and deletes (BatchWriteItem) or keys (BatchGetItem) in the
    /// requests that reached the server; zero for other operations.
    pub batch_items_forwarded: usize,
}

/// The capacity a metering proxy saw the server report for one operation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Capacity {
    /// Answers that reported consumed capacity.
    pub reports: usize,
    /// Read capacity units.
    pub read: f64,
    /// Write capacity units.
    pub write: f64,
}

/// A running proxy. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FaultProxy {
    endpoint: String,
    state: Arc<State>,
    acceptor: JoinHandle<()>,
}

#[derive(Debug)]
struct State {
    /// `host:port` of the server behind the proxy.
    upstream: String,
    scripts: Mutex<HashMap<String, VecDeque<Fault>>>,
    counts: Mutex<HashMap<String, Counts>>,
    /// Whether requests ask for their consumed capacity, summed here.
    metering: bool,
    capacity: Mutex<HashMap<String, Capacity>>,
}

/// The error a request handler returns to make hyper close the connection
/// without writing a response.
#[derive(Debug)]
struct DropConnection;

impl std::fmt::Display for DropConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by the fault proxy")
    }
}

impl std::error::Error for DropConnection {}

/// A response held in full: the proxy reads and rewrites whole bodies.
type Reply = Response<Bytes>;

const BATCH_WRITE: &str = "BatchWriteItem";
const BATCH_GET: &str = "BatchGetItem";

/// The operations that take `ReturnConsumedCapacity`.
const METERED: &[&str] = &[
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    BATCH_GET,
    BATCH_WRITE,
    "TransactGetItems",
    "TransactWriteItems",
    "ExecuteStatement",
    "BatchExecuteStatement",
    "ExecuteTransaction",
];

/// The operations whose `CapacityUnits` are read units when the answer
/// does not say.
const READS: &[&str] = &["GetItem", "Query", "Scan", BATCH_GET, "TransactGetItems"];

impl FaultProxy {
    /// Starts a proxy on a free `127.0.0.1` port in front of `upstream`
    /// (`http://host:port`). Needs a Tokio runtime.
    pub async fn start(upstream: &str) -> Self {
        Self::start_with(upstream, false).await
    }

    /// Starts a proxy that also meters consumed capacity: see
    /// [`capacity`](Self::capacity).
    pub async fn start_metering(upstream: &str) -> Self {
        Self::start_with(upstream, true).await
    }

    async fn start_with(upstream: &str, metering: bool) -> Self {
        let authority = upstream
            .strip_prefix("http://")
            .unwrap_or_else(|| panic!("the fault proxy forwards to http:// only, not {upstream}"))
            .trim_end_matches('/')
            .to_owned();
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fault proxy");
        let address = listener.local_addr().expect("fault proxy address");
        let state = Arc::new(State {
            upstream: authority,
            scripts: Mutex::default(),
            counts: Mutex::default(),
            metering,
            capacity: Mutex::default(),
        });
        let acceptor = tokio::spawn(accept(listener, state.clone()));
        Self {
            endpoint: format!("http://{address}"),
            state,
            acceptor,
        }
    }

    /// The proxy's URL (`http://127.0.0.1:<port>`), for the SDK client.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Appends `faults` to `operation`'s script: its next requests get them,
    /// one each, in order; requests after the script are forwarded.
    pub fn script(&self, operation: &str, faults: impl IntoIterator<Item = Fault>) {
        let faults: Vec<Fault> = faults.into_iter().collect();
        let partial = faults
            .iter()
            .any(|f| matches!(f, Fault::PartialBatch { .. }));
        assert!(
            !partial || operation == BATCH_WRITE || operation == BATCH_GET,
            "a partial batch result is for {BATCH_WRITE} or {BATCH_GET}, not {operation}"
        );
        lock(&self.state.scripts)
            .entry(operation.to_owned())
            .or_default()
            .extend(faults);
    }

    /// Faults scripted for `operation` that no request has met yet.
    pub fn pending(&self, operation: &str) -> usize {
        lock(&self.state.scripts)
            .get(operation)
            .map_or(0, VecDeque::len)
    }

    /// What the proxy saw of `operation` so far.
    pub fn counts(&self, operation: &str) -> Counts {
        lock(&self.state.counts)
            .get(operation)
            .copied()
            .unwrap_or_default()
    }

    /// What the proxy saw of every operation so far, by operation.
    pub fn all_counts(&self) -> BTreeMap<String, Counts> {
        lock(&self.state.counts)
            .iter()
            .map(|(operation, counts)| (operation.clone(), *counts))
            .collect()
    }

    /// The capacity the server reported consuming for `operation` so far
    /// (a metering proxy; zero otherwise).
    pub fn capacity(&self, operation: &str) -> Capacity {
        lock(&self.state.capacity)
            .get(operation)
            .copied()
            .unwrap_or_default()
    }

    /// The capacity reported for every operation so far, by operation.
    pub fn all_capacity(&self) -> BTreeMap<String, Capacity> {
        lock(&self.state.capacity)
            .iter()
            .map(|(operation, capacity)| (operation.clone(), *capacity))
            .collect()
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

/// A poisoned lock only means another test thread panicked; the data is
/// still counts and queues.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn accept(listener: TcpListener, state: Arc<State>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { state.handle(request).await }
            });
            // A dropped connection ends here with the handler's error, by
            // design; a client that hangs up ends it too.
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

impl State {
    async fn handle(
        &self,
        request: Request<Incoming>,
    ) -> Result<Response<Full<Bytes>>, DropConnection> {
        Ok(self.reply(request).await?.map(Full::new))
    }

    async fn reply(&self, request: Request<Incoming>) -> Result<Reply, DropConnection> {
        let operation = operation_of(request.headers());
        let fault = self.next_fault(&operation);
        let (parts, body) = request.into_parts();
        // A client that hangs up mid-body gets nothing back either way.
        let body = body.collect().await.map_err(|_| DropConnection)?.to_bytes();
        let request = Request::from_parts(parts, body);
        match fault {
            Fault::Forward => Ok(self.forward(&operation, request).await),
            Fault::ProvisionedThroughputExceeded => Ok(error(
                StatusCode::BAD_REQUEST,
                "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "The level of configured provisioned throughput for the table was exceeded (fault proxy)",
            )),
            Fault::Throttling => Ok(error(
                StatusCode::BAD_REQUEST,
                "com.amazon.coral.availability#ThrottlingException",
                "Rate of requests exceeds the allowed throughput (fault proxy)",
            )),
            Fault::ServerErrorBeforeForwarding => Ok(internal_server_error("before forwarding")),
            Fault::ServerErrorAfterForwarding => {
                self.forward(&operation, request).await;
                Ok(internal_server_error("after forwarding"))
            }
            Fault::DropBeforeForwarding => Err(DropConnection),
            Fault::DropAfterForwarding => {
                self.forward(&operation, request).await;
                Err(DropConnection)
            }
            Fault::PartialBatch { forward } => Ok(self.partial(&operation, request, forward).await),
            Fault::Delay(delay) => {
                tokio::time::sleep(delay).await;
                Ok(self.forward(&operation, request).await)
            }
        }
    }

    /// Counts the request and takes its fault off the script.
    fn next_fault(&self, operation: &str) -> Fault {
        self.count(operation, |c| c.received += 1);
        lock(&self.scripts)
            .get_mut(operation)
            .and_then(VecDeque::pop_front)
            .unwrap_or(Fault::Forward)
    }

    fn count(&self, operation: &str, change: impl FnOnce(&mut Counts)) {
        change(lock(&self.counts).entry(operation.to_owned()).or_default());
    }

    /// Sends the request to the server and returns its answer, or 502 when
    /// the server cannot be reached.
    async fn forward(&self, operation: &str, request: Request<Bytes>) -> Reply {
        let items = match operation {
            BATCH_WRITE | BATCH_GET => {
                serde_json::from_slice::<Value>(request.body()).map_or(0, |body| batch_items(&body))
            }
            _ => 0,
        };
        self.count(operation, |c| {
            c.forwarded += 1;
            c.batch_items_forwarded += items;
        });
        let metered = self.metering && METERED.contains(&operation);
        let request = if metered {
            ask_for_capacity(request)
        } else {
            request
        };
        match send_upstream(&self.upstream, request).await {
            Ok(response) => {
                if metered {
                    self.meter(operation, response.body());
                }
                response
            }
            Err(e) => error(
                StatusCode::BAD_GATEWAY,
                "com.amazon.coral.service#InternalFailure",
                &format!("fault proxy: upstream {} failed: {e}", self.upstream),
            ),
        }
    }

    /// Adds the capacity an answer reports to `operation`'s.
    fn meter(&self, operation: &str, answer: &[u8]) {
        let Ok(answer) = serde_json::from_slice::<Value>(answer) else {
            return;
        };
        if let Some(consumed) = consumed(&answer, READS.contains(&operation)) {
            let mut all = lock(&self.capacity);
            let sum = all.entry(operation.to_owned()).or_default();
            sum.reports += 1;
            sum.read += consumed.read;
            sum.write += consumed.write;
        }
    }

    /// Forwards the first `forward` items of a batch and answers the rest as
    /// unprocessed.
    async fn partial(&self, operation: &str, request: Request<Bytes>, forward: usize) -> Reply {
        let Ok(mut body) = serde_json::from_slice::<Value>(request.body()) else {
            return self.forward(operation, request).await;
        };
        let held_back = split_batch(&mut body, forward);
        let unprocessed_field = match operation {
            BATCH_WRITE => "UnprocessedItems",
            _ => "UnprocessedKeys",
        };
        if batch_items(&body) == 0 {
            // DynamoDB refuses an empty batch: answer for the server.
            let mut answer = Map::new();
            answer.insert(unprocessed_field.into(), Value::Object(held_back));
            if operation == BATCH_GET {
                answer.insert("Responses".into(), json!({}));
            }
            return json_response(StatusCode::OK, &Value::Object(answer));
        }
        let (parts, _) = request.into_parts();
        let request = Request::from_parts(parts, Bytes::from(body.to_string()));
        let response = self.forward(operation, request).await;
        if response.status() != StatusCode::OK {
            return response;
        }
        let (mut parts, answer) = response.into_parts();
        let Ok(mut answer) = serde_json::from_slice::<Value>(&answer) else {
            return error(
                StatusCode::BAD_GATEWAY,
                "com.amazon.coral.service#InternalFailure",
                "fault proxy: the server's batch answer is not JSON",
            );
        };
        merge_unprocessed(&mut answer, unprocessed_field, held_back);
        // The body changed: the server's checksum no longer holds.
        parts.headers.remove("x-amz-crc32");
        Response::from_parts(parts, Bytes::from(answer.to_string()))
    }
}

/// The request with `"ReturnConsumedCapacity": "TOTAL"` added, unless it
/// asks for capacity already (or is not a JSON object).
fn ask_for_capacity(request: Request<Bytes>) -> Request<Bytes> {
    let Ok(Value::Object(mut body)) = serde_json::from_slice::<Value>(request.body()) else {
        return request;
    };
    if body.contains_key("ReturnConsumedCapacity") {
        return request;
    }
    body.insert("ReturnConsumedCapacity".into(), json!("TOTAL"));
    let (parts, _) = request.into_parts();
    Request::from_parts(parts, Bytes::from(Value::Object(body).to_string()))
}

/// The capacity an answer reports: its `ConsumedCapacity`, one object or
/// one per table. An entry that does not split its `CapacityUnits` into
/// `ReadCapacityUnits` and `WriteCapacityUnits` counts them as reads when
/// `read` (the operation only reads), as writes otherwise. `None` when the
/// answer reports none.
fn consumed(answer: &Value, read: bool) -> Option<Capacity> {
    let entries = match answer.get("ConsumedCapacity")? {
        Value::Array(entries) => entries.iter().collect(),
        entry @ Value::Object(_) => vec![entry],
        _ => return None,
    };
    let units = |entry: &Value, field: &str| entry.get(field).and_then(Value::as_f64);
    let mut sum = Capacity {
        reports: 1,
        ..Capacity::default()
    };
    for entry in entries {
        let (reads, writes) = (
            units(entry, "ReadCapacityUnits"),
            units(entry, "WriteCapacityUnits"),
        );
        if reads.is_some() || writes.is_some() {
            sum.read += reads.unwrap_or(0.0);
            sum.write += writes.unwrap_or(0.0);
        } else if read {
            sum.read += units(entry, "CapacityUnits").unwrap_or(0.0);
        } else {
            sum.write += units(entry, "CapacityUnits").unwrap_or(0.0);
        }
    }
    Some(sum)
}

/// `PutItem` for `X-Amz-Target: DynamoDB_20120810.PutItem`; empty without
/// the header.
fn operation_of(headers: &HeaderMap) -> String {
    headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .map(|target| target.rsplit('.').next().unwrap_or(target).to_owned())
        .unwrap_or_default()
}

/// One request on a fresh connection to `upstream`, answered in full.
async fn send_upstream(
    upstream: &str,
    request: Request<Bytes>,
) -> Result<Reply, Box<dyn std::error::Error + Send + Sync>> {
    let stream = TcpStream::connect(upstream).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let (mut parts, body) = request.into_parts();
    // Framing is per hop: hyper sets the length of the body it sends.
    strip_hop_headers(&mut parts.headers);
    let response = sender
        .send_request(Request::from_parts(parts, Full::new(body)))
        .await?;
    let (mut parts, body) = response.into_parts();
    let body = body.collect().await?.to_bytes();
    strip_hop_headers(&mut parts.headers);
    Ok(Response::from_parts(parts, body))
}

fn strip_hop_headers(headers: &mut HeaderMap) {
    for name in [
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
    ] {
        headers.remove(name);
    }
}

/// An error answer in DynamoDB's JSON protocol.
fn error(status: StatusCode, kind: &str, message: &str) -> Reply {
    json_response(status, &json!({ "__type": kind, "message": message }))
}

fn internal_server_error(when: &str) -> Reply {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "com.amazonaws.dynamodb.v20120810#InternalServerError",
        &format!("Internal server error (fault proxy, {when})"),
    )
}

fn json_response(status: StatusCode, body: &Value) -> Reply {
    let mut response = Response::new(Bytes::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/x-amz-json-1.0"),
    );
    response
}

/// A table's entry in a batch: its write requests (BatchWriteItem: a list)
/// or its keys (BatchGetItem: `Keys` beside the table's read settings).
fn entries(table: &mut Value) -> Option<&mut Vec<Value>> {
    if table.is_array() {
        table.as_array_mut()
    } else {
        table.get_mut("Keys").and_then(Value::as_array_mut)
    }
}

/// The requests or keys of every table in a batch request.
fn batch_items(body: &Value) -> usize {
    let Some(tables) = body.get("RequestItems").and_then(Value::as_object) else {
        return 0;
    };
    tables
        .values()
        .filter_map(|table| table.as_array().or_else(|| table.get("Keys")?.as_array()))
        .map(Vec::len)
        .sum()
}

/// Keeps the first `forward` requests or keys of the batch request `body`
/// (in table-name order, then request order) and returns the rest, shaped
/// as the `RequestItems` of a new request, which is what DynamoDB answers as
/// unprocessed. Tables left empty are removed.
fn split_batch(body: &mut Value, mut forward: usize) -> Map<String, Value> {
    let mut held_back = Map::new();
    let Some(tables) = body.get_mut("RequestItems").and_then(Value::as_object_mut) else {
        return held_back;
    };
    for (name, table) in tables.iter_mut() {
        let Some(items) = entries(table) else {
            continue;
        };
        let kept = forward.min(items.len());
        forward -= kept;
        let rest = items.split_off(kept);
        if rest.is_empty() {
            continue;
        }
        // Held-back keys keep their table's read settings (ConsistentRead,
        // projection), as DynamoDB's UnprocessedKeys do.
        let mut unprocessed = table.clone();
        if let Some(items) = entries(&mut unprocessed) {
            *items = rest;
        }
        held_back.insert(name.clone(), unprocessed);
    }
    tables.retain(|_, table| entries(table).is_some_and(|e| !e.is_empty()));
    held_back
}

/// Adds the held-back requests or keys to the server's own unprocessed
/// ones (`field` of its answer).
fn merge_unprocessed(answer: &mut Value, field: &str, held_back: Map<String, Value>) {
    if !answer[field].is_object() {
        answer[field] = json!({});
    }
    let unprocessed = &mut answer[field];
    for (table, mut held) in held_back {
        match unprocessed.get_mut(&table).and_then(entries) {
            Some(theirs) => {
                theirs.extend(entries(&mut held).map(std::mem::take).unwrap_or_default())
            }
            None => unprocessed[&table] = held,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_write_splits_in_table_then_request_order() {
        let mut body = json!({ "RequestItems": {
            "a": [{"PutRequest": {"Item": {"pk": {"S": "1"}}}}, {"PutRequest": {"Item": {"pk": {"S": "2"}}}}],
            "b": [{"DeleteRequest": {"Key": {"pk": {"S": "3"}}}}],
        }});
        let held = split_batch(&mut body, 1);
        assert_eq!(batch_items(&body), 1);
        assert_eq!(
            body["RequestItems"]["a"][0]["PutRequest"]["Item"]["pk"]["S"],
            "1"
        );
        assert!(body["RequestItems"].get("b").is_none());
        assert_eq!(held["a"][0]["PutRequest"]["Item"]["pk"]["S"], "2");
        assert_eq!(held["b"][0]["DeleteRequest"]["Key"]["pk"]["S"], "3");
    }

    #[test]
    fn held_back_keys_keep_their_settings_and_join_the_servers_unprocessed_keys() {
        let mut body = json!({ "RequestItems": { "a": {
            "Keys": [{"pk": {"S": "1"}}, {"pk": {"S": "2"}}, {"pk": {"S": "3"}}],
            "ConsistentRead": true,
        }}});
        let held = split_batch(&mut body, 2);
        assert_eq!(batch_items(&body), 2);
        assert_eq!(held["a"]["ConsistentRead"], true);
        let mut answer = json!({ "Responses": {}, "UnprocessedKeys": { "a": {
            "Keys": [{"pk": {"S": "2"}}], "ConsistentRead": true,
        }}});
        merge_unprocessed(&mut answer, "UnprocessedKeys", held);
        assert_eq!(
            answer["UnprocessedKeys"]["a"]["Keys"],
            json!([{"pk": {"S": "2"}}, {"pk": {"S": "3"}}])
        );
    }

    #[test]
    fn capacity_is_summed_over_tables_and_split_only_when_the_answer_does_not() {
        let one = json!({ "ConsumedCapacity": { "TableName": "a", "CapacityUnits": 1.0 } });
        assert_eq!(
            consumed(&one, true).map(|c| (c.read, c.write)),
            Some((1.0, 0.0))
        );
        assert_eq!(
            consumed(&one, false).map(|c| (c.read, c.write)),
            Some((0.0, 1.0))
        );
        let split = json!({ "ConsumedCapacity": [
            { "TableName": "a", "CapacityUnits": 5.0, "ReadCapacityUnits": 1.0, "WriteCapacityUnits": 4.0 },
            { "TableName": "b", "CapacityUnits": 2.0 },
        ]});
        assert_eq!(
            consumed(&split, false).map(|c| (c.reports, c.read, c.write)),
            Some((1, 1.0, 6.0))
        );
        assert_eq!(consumed(&json!({}), false), None);
    }

    #[test]
    fn capacity_is_asked_for_unless_the_request_asks_already() {
        let body =
            |request: Request<Bytes>| serde_json::from_slice::<Value>(request.body()).unwrap();
        let plain = Request::new(Bytes::from(r#"{"TableName":"a"}"#));
        assert_eq!(
            body(ask_for_capacity(plain)),
            json!({ "TableName": "a", "ReturnConsumedCapacity": "TOTAL" })
        );
        let indexes = Request::new(Bytes::from(
            r#"{"TableName":"a","ReturnConsumedCapacity":"INDEXES"}"#,
        ));
        assert_eq!(
            body(ask_for_capacity(indexes))["ReturnConsumedCapacity"],
            "INDEXES"
        );
    }

    #[tokio::test]
    async fn a_metering_proxy_sums_what_the_embedded_server_reports() {
        use aws_sdk_dynamodb::types::AttributeValue;
        use entity_core::Entity;
        let server = entity_client::EmbeddedDynamo::start().await.unwrap();
        let proxy = FaultProxy::start_metering(server.endpoint()).await;
        let client = entity_client::Client::local(proxy.endpoint(), "meter");
        client
            .create_table(&[crate::Employee::MODEL])
            .await
            .unwrap();
        let sdk = client.sdk();
        let out = sdk
            .put_item()
            .table_name("meter")
            .item("pk", AttributeValue::S("a".into()))
            .item("sk", AttributeValue::S("b".into()))
            .send()
            .await
            .unwrap();
        // The client did not ask, yet the answer it parsed carries it.
        assert!(out.consumed_capacity.is_some());
        sdk.get_item()
            .table_name("meter")
            .key("pk", AttributeValue::S("a".into()))
            .key("sk", AttributeValue::S("b".into()))
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        assert_eq!(proxy.capacity("PutItem").write, 1.0);
        assert_eq!(proxy.capacity("GetItem").read, 1.0);
        // CreateTable takes no ReturnConsumedCapacity: sent unchanged.
        assert_eq!(proxy.capacity("CreateTable"), Capacity::default());
        assert_eq!(proxy.all_counts()["CreateTable"].forwarded, 1);
    }

    #[test]
    fn the_operation_is_the_target_after_the_service_prefix() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-amz-target",
            HeaderValue::from_static("DynamoDB_20120810.BatchWriteItem"),
        );
        assert_eq!(operation_of(&headers), "BatchWriteItem");
        assert_eq!(operation_of(&HeaderMap::new()), "");
    }
}
