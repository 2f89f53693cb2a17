//! A client whose requests are recorded as sent (operation and JSON body),
//! to assert on what went over the wire: how many requests, which `Limit`.

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use entity_client::Client;
use std::sync::{Arc, Mutex};

/// One request as sent.
#[derive(Debug, Clone)]
pub struct Sent {
    /// The operation (`Query`, `Scan`, ...).
    pub operation: String,
    /// The JSON body.
    pub body: String,
}

/// The requests a client sent, in order.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<Sent>>>);

impl Recorder {
    /// The requests of `operation` sent so far.
    pub fn sent(&self, operation: &str) -> Vec<Sent> {
        let sent = self.0.lock().expect("recorder lock");
        sent.iter()
            .filter(|s| s.operation == operation)
            .cloned()
            .collect()
    }
}

impl Intercept for Recorder {
    fn name(&self) -> &'static str {
        "Recorder"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        let target = request.headers().get("x-amz-target").unwrap_or_default();
        let operation = target.rsplit('.').next().unwrap_or_default().to_owned();
        let body = request.body().bytes().unwrap_or_default();
        let body = String::from_utf8_lossy(body).into_owned();
        self.0
            .lock()
            .expect("recorder lock")
            .push(Sent { operation, body });
        Ok(())
    }
}

/// The same table through a client that records its requests.
pub fn recording(client: &Client) -> (Client, Recorder) {
    let recorder = Recorder::default();
    let config = client
        .sdk()
        .config()
        .to_builder()
        .interceptor(recorder.clone())
        .build();
    let sdk = aws_sdk_dynamodb::Client::from_conf(config);
    (Client::new(sdk, client.table()), recorder)
}
