//! An in-process DynamoDB-compatible server for tests and examples: dynoxide
//! on SQLite in memory, served over HTTP on `127.0.0.1`, so the real SDK
//! talks to it exactly as it talks to AWS.

use crate::client::{local_sdk_client, Client};
use tokio::sync::oneshot;

/// A running embedded server. Dropping it stops the server.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = entity_client::EmbeddedDynamo::start().await?;
/// let client = server.client("app");
/// let tables = client.sdk().list_tables().send().await?;
/// assert!(tables.table_names().is_empty());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct EmbeddedDynamo {
    endpoint: String,
    shutdown: Option<oneshot::Sender<()>>,
}

/// The embedded server could not start.
#[derive(Debug, thiserror::Error)]
#[error("the embedded DynamoDB server could not start: {0}")]
pub struct EmbeddedError(String);

impl EmbeddedDynamo {
    /// Starts a fresh, empty server on a free loopback port. Needs a Tokio
    /// runtime.
    pub async fn start() -> Result<Self, EmbeddedError> {
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
        Ok(Self {
            endpoint: format!("http://{address}"),
            shutdown: Some(shutdown),
        })
    }

    /// The server's URL (`http://127.0.0.1:<port>`).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// An SDK client for this server.
    pub fn sdk_client(&self) -> aws_sdk_dynamodb::Client {
        local_sdk_client(&self.endpoint)
    }

    /// A client for `table` on this server.
    pub fn client(&self, table: impl Into<String>) -> Client {
        Client::new(self.sdk_client(), table).with_engine(crate::Engine::Dynoxide)
    }
}

impl Drop for EmbeddedDynamo {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}
