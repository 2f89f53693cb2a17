//! `explain()`: every builder renders the exact request it would send, and
//! sends nothing.

mod common;

use common::scan_raw;
use entity_client::{Entity, Explain};
use entity_tests::harness::table;
use entity_tests::Order;

fn order(id: &str) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents: 100,
    }
}

#[tokio::test]
async fn writes_are_explained_and_not_sent() {
    let t = table(&[Order::MODEL]).await;
    let c = &t.client;
    let f = Order::fields();

    let put = c.put(&order("o1")).explain().await.unwrap();
    let request = put.request().unwrap();
    assert_eq!(request.operation, "PutItem");
    let json = request.json();
    assert_eq!(json["Item"]["order_id"]["S"], "o1");
    assert_eq!(json["TableName"], c.table());

    let create = c.create(&order("o1")).explain().await.unwrap();
    let request = create.request().unwrap();
    assert_eq!(request.operation, "TransactWriteItems", "exactly once");
    let put = &request.json()["TransactItems"][0]["Put"];
    assert!(put["ConditionExpression"]
        .as_str()
        .unwrap()
        .starts_with("attribute_not_exists"));

    let update = c
        .update(Order::key("u1", "2024-01-15", "o1"))
        .set(f.total_cents, 7i64)
        .explain()
        .await
        .unwrap();
    let json = update.request().unwrap().json();
    assert!(json["UpdateExpression"]
        .as_str()
        .unwrap()
        .starts_with("SET "));
    assert!(json["ExpressionAttributeValues"].is_object());

    let batch = c
        .batch_write()
        .put_all(&[order("o2"), order("o3")])
        .explain()
        .await
        .unwrap();
    assert_eq!(batch.request().unwrap().operation, "BatchWriteItem");

    assert!(scan_raw(c).await.is_empty(), "nothing was written");
    println!("{create}");
}

#[tokio::test]
async fn reads_are_explained_and_errors_before_sending_are_returned() {
    let t = table(&[Order::MODEL]).await;
    let c = &t.client;

    let query = c
        .query(Order::primary("u1").limit(5))
        .explain()
        .await
        .unwrap();
    let json = query.request().unwrap().json();
    assert_eq!(query.request().unwrap().operation, "Query");
    assert!(json["KeyConditionExpression"].is_string());
    assert!(json["FilterExpression"].is_string(), "the identity filter");

    let get = c
        .get(Order::key("u1", "2024-01-15", "o1"))
        .explain()
        .await
        .unwrap();
    assert_eq!(get.request().unwrap().operation, "GetItem");

    let long = "u".repeat(3000);
    let too_long = c.get(Order::key(&long, "2024-01-15", "o1")).explain().await;
    assert!(
        matches!(too_long, Err(entity_client::Error::Validation(_))),
        "refused before sending: {too_long:?}"
    );
}
