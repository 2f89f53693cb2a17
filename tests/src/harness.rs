//! Where integration tests run: a fresh embedded server per test by default,
//! or the DynamoDB-compatible endpoint named by `ENTITY_TEST_ENDPOINT`
//! (DynamoDB Local in CI), with a fresh table per test.

use entity_client::{Client, EmbeddedDynamo, EntityModel};
use std::sync::atomic::{AtomicU32, Ordering};

/// The environment variable naming an external endpoint.
pub const ENDPOINT_VARIABLE: &str = "ENTITY_TEST_ENDPOINT";

/// A table created for one test, and the server behind it.
pub struct TestTable {
    /// A client on the table.
    pub client: Client,
    /// Keeps the embedded server running (none for an external endpoint).
    pub server: Option<EmbeddedDynamo>,
}

impl TestTable {
    /// The URL of the server behind the table: the embedded server's, or
    /// `ENTITY_TEST_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        match &self.server {
            Some(server) => server.endpoint().to_owned(),
            None => std::env::var(ENDPOINT_VARIABLE).expect("an external endpoint"),
        }
    }
}

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A unique table name for this process.
pub fn table_name(prefix: &str) -> String {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{n}-{nanos}", std::process::id())
}

/// Creates a table for `models` on the test endpoint.
pub async fn table(models: &[&EntityModel]) -> TestTable {
    let table = connect().await;
    table
        .client
        .create_table(models)
        .await
        .expect("create table");
    table
}

/// A client on a fresh table name on the test endpoint, the table not yet
/// created (for tests that create it their own way).
pub async fn connect() -> TestTable {
    let name = table_name("t");
    let (client, server) = match std::env::var(ENDPOINT_VARIABLE) {
        Ok(endpoint) if !endpoint.is_empty() => (Client::local(&endpoint, name), None),
        _ => {
            let server = EmbeddedDynamo::start().await.expect("embedded server");
            (server.client(name), Some(server))
        }
    };
    TestTable { client, server }
}

/// Attempts the fast SDK client makes per request (the SDK's default is 3).
pub const FAST_SDK_ATTEMPTS: u32 = 5;

/// The SDK client `Client::local` builds, with millisecond backoffs and a
/// retry quota of its own (the SDK shares one per process by default, and
/// every failed retry spends from it): for tests through the fault proxy.
pub fn fast_sdk(endpoint: &str, quota_name: &str) -> aws_sdk_dynamodb::Client {
    use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition, TokenBucket};
    use std::time::Duration;
    let retry = RetryConfig::standard()
        .with_max_attempts(FAST_SDK_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(1))
        .with_max_backoff(Duration::from_millis(20));
    let partition = RetryPartition::custom(quota_name.to_owned())
        .token_bucket(TokenBucket::new(500))
        .build();
    let config = entity_client::local_sdk_client(endpoint)
        .config()
        .to_builder()
        .retry_config(retry)
        .retry_partition(partition)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}
