//! An HTTP client for the SDK that sends nothing: every request is answered
//! at once with a canned response chosen by its operation (the
//! `X-Amz-Target` header), so a benchmark through it times the client and
//! the SDK alone: no server, no socket, no waiting.

use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::Arc;

/// The canned response bodies, by operation (`PutItem`, `Query`, ...).
#[derive(Debug, Clone, Default)]
pub struct FakeDynamo {
    bodies: HashMap<&'static str, Bytes>,
}

impl FakeDynamo {
    /// Answers every request of `operation` with `body` (JSON, status 200).
    pub fn answer(mut self, operation: &'static str, body: impl Into<Bytes>) -> Self {
        self.bodies.insert(operation, body.into());
        self
    }

    /// An SDK client configured as `entity_client::local_sdk_client`
    /// configures one (static credentials, `us-east-1`, an endpoint URL),
    /// sending through this fake.
    pub fn sdk_client(self) -> aws_sdk_dynamodb::Client {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("local", "local", None, None, "bench"))
            .endpoint_url("http://fake.invalid")
            .http_client(Canned(SharedHttpConnector::new(Connector(Arc::new(self)))))
            .build();
        aws_sdk_dynamodb::Client::from_conf(config)
    }
}

/// The `HttpClient`: one connector for every setting.
#[derive(Debug)]
struct Canned(SharedHttpConnector);

impl HttpClient for Canned {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.0.clone()
    }
}

#[derive(Debug)]
struct Connector(Arc<FakeDynamo>);

impl HttpConnector for Connector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let operation = request
            .headers()
            .get("x-amz-target")
            .and_then(|target| target.rsplit('.').next())
            .unwrap_or_default();
        let (status, body) = match self.0.bodies.get(operation) {
            Some(body) => (200, SdkBody::from(body.clone())),
            None => (
                400,
                SdkBody::from(format!(
                    r#"{{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"no canned response for {operation}"}}"#
                )),
            ),
        };
        let mut response = HttpResponse::new(status.try_into().expect("status"), body);
        response
            .headers_mut()
            .insert("content-type", "application/x-amz-json-1.0");
        HttpConnectorFuture::ready(Ok(response))
    }
}
