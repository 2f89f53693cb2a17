//! One get through entity-client, then exit (`WARM=1`: `warm()` first, so
//! the get finds the connection open).

use std::time::Instant;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (endpoint, table) = entity_serverless::endpoint_and_table();
    let client = entity_client::Client::local(&endpoint, table);
    if std::env::var_os("WARM").is_some() {
        client.warm().await.expect("warm");
    }
    let start = Instant::now();
    let task = client
        .get(entity_serverless::Task::key(entity_serverless::TASK_ID))
        .await
        .expect("get");
    println!("get_us={}", start.elapsed().as_micros());
    assert!(task.is_some(), "the driver put the task");
}
