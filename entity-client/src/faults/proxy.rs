//! The fault proxy: an HTTP/1.1 proxy on `127.0.0.1` in front of a local
//! DynamoDB endpoint, which passes every request through unchanged except
//! the ones its [`Faults`] choose a fault for.
//!
//! A request's operation is its `X-Amz-Target` header
//! (`DynamoDB_20120810.PutItem` is `PutItem`).

use super::batch::{
    batch_items, merge_unprocessed, nothing_processed, split_batch, unprocessed_field,
};
use super::capacity::{ask_for_capacity, consumed, is_metered};
use super::{Fault, Faults};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A running fault proxy. Dropping it stops accepting connections.
///
/// [`EmbeddedDynamo::start_with_faults`](crate::EmbeddedDynamo::start_with_faults)
/// starts one in front of the embedded server; start one yourself to put
/// faults in front of another local server, such as DynamoDB Local:
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use entity_client::faults::{Fault, FaultProxy, Operation};
/// let proxy = FaultProxy::start("http://127.0.0.1:8000").await?;
/// proxy.faults().script(Operation::PutItem, [Fault::ServerErrorAfterApplying]);
/// let client = entity_client::Client::local(proxy.endpoint(), "app");
/// // ... put an item: it is applied, the answer is lost, the SDK retries ...
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct FaultProxy {
    endpoint: String,
    faults: Faults,
    acceptor: JoinHandle<()>,
}

/// The fault proxy could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FaultProxyError {
    /// The upstream is not a plain `http://host:port` URL: the proxy speaks
    /// HTTP/1.1 without TLS, to local servers.
    #[error("the fault proxy forwards to http://host:port only, not {0:?}")]
    Upstream(String),
    /// No port on `127.0.0.1` could be bound.
    #[error("the fault proxy could not listen on 127.0.0.1")]
    Bind(#[source] std::io::Error),
}

/// Where requests go, and whether they are metered.
#[derive(Debug)]
struct Proxy {
    faults: Faults,
    /// `host:port` of the server behind the proxy.
    upstream: String,
    /// Whether requests ask for their consumed capacity, summed in
    /// [`Faults::capacity`].
    metering: bool,
}

/// The error a request handler returns to make hyper close the connection
/// without writing a response.
#[derive(Debug, thiserror::Error)]
#[error("connection dropped by the fault proxy")]
struct DropConnection;

/// A response held in full: the proxy reads and rewrites whole bodies.
type Reply = Response<Bytes>;

impl FaultProxy {
    /// Starts a proxy on a free `127.0.0.1` port in front of `upstream`
    /// (`http://host:port`). Needs a Tokio runtime.
    pub async fn start(upstream: &str) -> Result<Self, FaultProxyError> {
        Self::start_with(upstream, false).await
    }

    /// Starts a proxy that also meters: it adds
    /// `"ReturnConsumedCapacity": "TOTAL"` to every request that takes it
    /// and does not ask already, and sums the capacity the answers report
    /// per operation ([`Faults::capacity`]).
    pub async fn start_metering(upstream: &str) -> Result<Self, FaultProxyError> {
        Self::start_with(upstream, true).await
    }

    async fn start_with(upstream: &str, metering: bool) -> Result<Self, FaultProxyError> {
        let authority = upstream
            .strip_prefix("http://")
            .map(|rest| rest.trim_end_matches('/'))
            .filter(|authority| !authority.is_empty() && !authority.contains('/'))
            .ok_or_else(|| FaultProxyError::Upstream(upstream.to_owned()))?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(FaultProxyError::Bind)?;
        let address = listener.local_addr().map_err(FaultProxyError::Bind)?;
        let faults = Faults::new();
        let proxy = Proxy {
            faults: faults.clone(),
            upstream: authority.to_owned(),
            metering,
        };
        let acceptor = tokio::spawn(accept(listener, std::sync::Arc::new(proxy)));
        Ok(Self {
            endpoint: format!("http://{address}"),
            faults,
            acceptor,
        })
    }

    /// The proxy's URL (`http://127.0.0.1:<port>`), for the SDK client.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The proxy's faults: what its next requests meet, and what it saw.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

async fn accept(listener: TcpListener, proxy: std::sync::Arc<Proxy>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let proxy = proxy.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let proxy = proxy.clone();
                async move { proxy.handle(request).await }
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

impl Proxy {
    async fn handle(
        &self,
        request: Request<Incoming>,
    ) -> Result<Response<Full<Bytes>>, DropConnection> {
        Ok(self.reply(request).await?.map(Full::new))
    }

    async fn reply(&self, request: Request<Incoming>) -> Result<Reply, DropConnection> {
        let operation = operation_of(request.headers());
        let fault = self.faults.next_fault(&operation);
        let (parts, body) = request.into_parts();
        // A client that hangs up mid-body gets nothing back either way.
        let body = body.collect().await.map_err(|_| DropConnection)?.to_bytes();
        let request = Request::from_parts(parts, body);
        match fault {
            Fault::Pass => Ok(self.forward(&operation, request).await),
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
            Fault::ServerErrorBeforeApplying => Ok(internal_server_error("before applying")),
            Fault::ServerErrorAfterApplying => {
                self.forward(&operation, request).await;
                Ok(internal_server_error("after applying"))
            }
            Fault::DropBeforeApplying => Err(DropConnection),
            Fault::DropAfterApplying => {
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

    /// Sends the request to the server and returns its answer, or 502 when
    /// the server cannot be reached.
    async fn forward(&self, operation: &str, request: Request<Bytes>) -> Reply {
        let items = match operation {
            "BatchWriteItem" | "BatchGetItem" => {
                serde_json::from_slice::<Value>(request.body()).map_or(0, |body| batch_items(&body))
            }
            _ => 0,
        };
        self.faults.count(operation, |c| {
            c.forwarded += 1;
            c.batch_items_forwarded += items;
        });
        let metered = self.metering && is_metered(operation);
        let request = match metered.then(|| ask_for_capacity(request.body())).flatten() {
            Some(body) => request.map(|_| Bytes::from(body)),
            None => request,
        };
        match send_upstream(&self.upstream, request).await {
            Ok(response) => {
                let consumed = metered.then(|| consumed(operation, response.body()));
                if let Some(capacity) = consumed.flatten() {
                    self.faults.add_capacity(operation, capacity);
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

    /// Forwards the first `forward` items of a batch and answers the rest as
    /// unprocessed; any other request is forwarded whole.
    async fn partial(&self, operation: &str, request: Request<Bytes>, forward: usize) -> Reply {
        let is_batch = matches!(operation, "BatchWriteItem" | "BatchGetItem");
        let body = serde_json::from_slice::<Value>(request.body());
        let Some(mut body) = body.ok().filter(|_| is_batch) else {
            return self.forward(operation, request).await;
        };
        let held_back = split_batch(&mut body, forward);
        if batch_items(&body) == 0 {
            // DynamoDB refuses an empty batch: answer for the server.
            return json_response(StatusCode::OK, &nothing_processed(operation, held_back));
        }
        let request = request.map(|_| Bytes::from(body.to_string()));
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
        merge_unprocessed(&mut answer, unprocessed_field(operation), held_back);
        // The body changed: the server's checksum no longer holds.
        parts.headers.remove("x-amz-crc32");
        Response::from_parts(parts, Bytes::from(answer.to_string()))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn only_a_plain_http_upstream_is_taken() {
        for upstream in [
            "https://example.com",
            "127.0.0.1:8000",
            "http://",
            "http://a/b",
        ] {
            assert!(matches!(
                FaultProxy::start(upstream).await,
                Err(FaultProxyError::Upstream(_))
            ));
        }
        assert!(FaultProxy::start("http://127.0.0.1:8000/").await.is_ok());
    }
}
