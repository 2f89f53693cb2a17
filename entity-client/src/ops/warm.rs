//! Opening the connection ahead of the first request ([`Client::warm`]),
//! for serverless starts: on AWS Lambda the first call of a cold start
//! pays the credential lookup, DNS, TCP and TLS handshakes, which `warm`
//! moves into the init phase.

use crate::error::{from_sdk, Result};
use crate::Client;
use aws_sdk_dynamodb::error::SdkError;

impl<S: crate::scoping::Scope> Client<S> {
    /// Resolves credentials and opens a connection to the endpoint with one
    /// `DescribeEndpoints` call, which needs no table and no permission on
    /// one. Any answer from the service, an error included, means the
    /// connection is open and is `Ok`; an error is returned only when no
    /// answer came (no connection, a timeout, no credentials).
    ///
    /// Call it where a function starts (outside the handler on Lambda), so
    /// the first real request reuses the connection.
    ///
    /// ```
    /// # #[cfg(feature = "embedded")]
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = entity_client::EmbeddedDynamo::start().await?;
    /// let client = server.client("app");
    /// client.warm().await?; // before the first request
    /// # Ok(()) }
    /// # #[cfg(not(feature = "embedded"))]
    /// # fn main() {}
    /// ```
    pub async fn warm(&self) -> Result<()> {
        match self.inner.sdk.describe_endpoints().send().await {
            Ok(_) | Err(SdkError::ServiceError(_)) => Ok(()),
            Err(e) => Err(from_sdk("DescribeEndpoints", "warm", e)),
        }
    }
}
