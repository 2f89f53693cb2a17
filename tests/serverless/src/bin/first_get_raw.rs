//! One GetItem through the raw SDK, then exit. It links no crate of ours:
//! the driver passes the key's text (`SERVERLESS_PK`, `SERVERLESS_SK`).

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::AttributeValue;
use std::time::Instant;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"));
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "raw"))
        .endpoint_url(var("SERVERLESS_ENDPOINT"))
        .build();
    let sdk = aws_sdk_dynamodb::Client::from_conf(config);
    let start = Instant::now();
    let out = sdk
        .get_item()
        .table_name(var("SERVERLESS_TABLE"))
        .key("pk", AttributeValue::S(var("SERVERLESS_PK")))
        .key("sk", AttributeValue::S(var("SERVERLESS_SK")))
        .send()
        .await
        .expect("get");
    println!("get_us={}", start.elapsed().as_micros());
    assert!(out.item.is_some(), "the driver put the task");
}
