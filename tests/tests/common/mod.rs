//! Helpers shared by the `client_*` integration tests: fixtures and raw SDK
//! access, to assert on what is stored rather than on what the client says.
#![allow(dead_code)]

pub mod requests;

use aws_sdk_dynamodb::types::AttributeValue;
use entity_client::{Client, Entity, Item, PrimaryKey};
use entity_tests::{ChecklistItem, Status, Task};

/// A task with every field set.
pub fn task(id: &str, project: &str, assignee: &str, priority: u8, status: Status) -> Task {
    Task {
        task_id: id.into(),
        project_id: project.into(),
        employee_id: assignee.into(),
        priority,
        status,
        title: format!("title of {id}"),
        tags: ["rust".to_owned(), "dynamodb".to_owned()].into(),
        estimate: Some(1.5),
        checklist: vec![ChecklistItem {
            text: "write tests".into(),
            done: false,
        }],
    }
}

/// A string attribute.
pub fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

/// A number attribute.
pub fn n(text: &str) -> AttributeValue {
    AttributeValue::N(text.into())
}

/// The stored item at raw `pk`/`sk` key text (attributes `pk` and `sk`),
/// read with the raw SDK.
pub async fn stored_at(client: &Client, pk: &str, sk: &str) -> Item {
    client
        .sdk()
        .get_item()
        .table_name(client.table())
        .key("pk", s(pk))
        .key("sk", s(sk))
        .consistent_read(true)
        .send()
        .await
        .expect("get")
        .item
        .expect("stored item")
}

/// The stored item with this key, read with the raw SDK (consistently).
pub async fn stored<E: Entity>(client: &Client, key: &PrimaryKey<E>) -> Option<Item> {
    client
        .sdk()
        .get_item()
        .table_name(client.table())
        .set_key(Some(key.to_item()))
        .consistent_read(true)
        .send()
        .await
        .expect("raw GetItem")
        .item
}

/// Writes an item as is with the raw SDK.
pub async fn put_raw(client: &Client, item: Item) {
    client
        .sdk()
        .put_item()
        .table_name(client.table())
        .set_item(Some(item))
        .send()
        .await
        .expect("raw PutItem");
}

/// Every item in the table, read with the raw SDK (all pages).
pub async fn scan_raw(client: &Client) -> Vec<Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .sdk()
            .scan()
            .table_name(client.table())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("raw Scan");
        out.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

/// The stored item decoded as `E`.
pub async fn stored_entity<E: Entity>(client: &Client, key: &PrimaryKey<E>) -> Option<E> {
    stored(client, key)
        .await
        .map(|item| E::from_item(item).expect("stored item decodes"))
}

/// Reads until `read` returns `expected`, for up to ten seconds, then
/// asserts it does. Global secondary indexes are eventually consistent on
/// some servers (on the embedded one and DynamoDB Local, the first read
/// already sees every write).
pub async fn eventually<T, F, Fut>(expected: T, mut read: F)
where
    T: PartialEq + std::fmt::Debug,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let got = read().await;
        if got == expected {
            return;
        }
        if std::time::Instant::now() > deadline {
            assert_eq!(got, expected, "not even after ten seconds");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
