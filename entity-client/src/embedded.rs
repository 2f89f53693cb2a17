//! An in-process DynamoDB-compatible server for tests and examples: dynoxide
//! on SQLite in memory, served over HTTP on `127.0.0.1`, so the real SDK
//! talks to it exactly as it talks to AWS.

use crate::client::{local_sdk_client, Client};
use crate::faults::{FaultProxy, Faults};
use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition, TokenBucket};
use aws_sdk_dynamodb::config::Intercept;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// A running embedded server. It runs as long as this value, or any client
/// made from it, lives: the server stops when the last of them is dropped.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = entity_client::EmbeddedDynamo::start().await?;
/// let client = server.client("app");
/// let tables = client.sdk().list_tables().send().await?;
/// assert!(tables.table_names().is_empty());
///
/// // A client alone keeps its server running.
/// let client = entity_client::EmbeddedDynamo::start().await?.client("app");
/// assert!(client.sdk().list_tables().send().await.is_ok());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct EmbeddedDynamo {
    endpoint: String,
    running: Arc<Running>,
}

/// The running server: stopped when the last holder (the server value,
/// or an SDK client made from it) is dropped.
#[derive(Debug)]
struct Running {
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
    /// The fault proxy in front of the server, and the retry quota its
    /// clients share (a server started with faults).
    faulty: Option<(FaultProxy, RetryPartition)>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let shutdown = self.shutdown.get_mut().ok().and_then(Option::take);
        if let Some(shutdown) = shutdown {
            let _ = shutdown.send(());
        }
    }
}

/// Rides on every SDK client made from the server, holding it running.
#[derive(Debug)]
struct KeepRunning(#[allow(dead_code)] Arc<Running>); // held, never read

impl Intercept for KeepRunning {
    fn name(&self) -> &'static str {
        "entity_client::embedded"
    }
}

/// The embedded server could not start.
#[derive(Debug, thiserror::Error)]
#[error("the embedded DynamoDB server could not start: {0}")]
pub struct EmbeddedError(String);

impl EmbeddedDynamo {
    /// Starts a fresh, empty server on a free loopback port. Needs a Tokio
    /// runtime.
    pub async fn start() -> Result<Self, EmbeddedError> {
        let (endpoint, shutdown) = serve().await?;
        Ok(Self::running(endpoint, shutdown, None))
    }

    /// Starts a fresh, empty server behind a [`FaultProxy`], and returns it
    /// with the proxy's [`Faults`]: its endpoint is the proxy's, so every
    /// client made from it meets the faults a test chooses. See the
    /// [testing guide](crate::guide::testing#faults-on-demand).
    ///
    /// Its SDK clients retry as the SDK does by default (3 attempts), but
    /// back off for milliseconds rather than up to seconds, and share a
    /// retry quota of this server's, so a test's throttles do not drain
    /// the quota of the process.
    pub async fn start_with_faults() -> Result<(Self, Faults), EmbeddedError> {
        let (endpoint, shutdown) = serve().await?;
        // On an error the shutdown sender is dropped, which stops the server.
        let proxy = FaultProxy::start(&endpoint)
            .await
            .map_err(|e| EmbeddedError(e.to_string()))?;
        let faults = proxy.faults().clone();
        let quota = RetryPartition::custom(format!("entity-client-embedded-{}", proxy.endpoint()))
            .token_bucket(TokenBucket::default())
            .build();
        let endpoint = proxy.endpoint().to_owned();
        let server = Self::running(endpoint, shutdown, Some((proxy, quota)));
        Ok((server, faults))
    }

    fn running(
        endpoint: String,
        shutdown: oneshot::Sender<()>,
        faulty: Option<(FaultProxy, RetryPartition)>,
    ) -> Self {
        Self {
            endpoint,
            running: Arc::new(Running {
                shutdown: Mutex::new(Some(shutdown)),
                faulty,
            }),
        }
    }
    /// The server's URL (`http://127.0.0.1:<port>`): its fault proxy's
    /// when it was started with faults.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// An SDK client for this server; it keeps the server running.
    pub fn sdk_client(&self) -> aws_sdk_dynamodb::Client {
        let sdk = local_sdk_client(&self.endpoint);
        let keep = KeepRunning(self.running.clone());
        let mut config = sdk.config().to_builder().interceptor(keep);
        if let Some((_, quota)) = &self.running.faulty {
            let quick = RetryConfig::standard()
                .with_initial_backoff(Duration::from_millis(1))
                .with_max_backoff(Duration::from_millis(20));
            config = config.retry_config(quick).retry_partition(quota.clone());
        }
        aws_sdk_dynamodb::Client::from_conf(config.build())
    }

    /// A client for `table` on this server; it (and every client made
    /// from it) keeps the server running.
    pub fn client(&self, table: impl Into<String>) -> Client {
        Client::new(self.sdk_client(), table).with_engine(crate::Engine::Dynoxide)
    }
}

/// Starts dynoxide on SQLite in memory on a free `127.0.0.1` port: its URL,
/// and the sender that stops it (when sent to, or dropped).
async fn serve() -> Result<(String, oneshot::Sender<()>), EmbeddedError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| EmbeddedError(e.to_string()))?;
    let address = listener
        .local_addr()
        .map_err(|e| EmbeddedError(e.to_string()))?;
    let database = dynoxide::Database::memory().map_err(|e| EmbeddedError(e.to_string()))?;
    let (shutdown, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let stop = async move {
            let _ = stopped.await;
        };
        let _ = dynoxide::server::serve_with_shutdown(listener, database, stop).await;
    });
    Ok((format!("http://{address}"), shutdown))
}
