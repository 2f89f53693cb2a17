//! The hand-written contenders of the client benchmarks: what a program
//! with only aws-sdk-dynamodb (and the entity's generated conversion) would
//! write for each operation, and the entity they all write and read.

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use entity_core::{Entity, Item, PrimaryKey};
use futures::stream::{self, StreamExt};

/// The benchmarked entity: a partition of events sorted by sequence number.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(account)]
#[sk(seq)]
pub struct Event {
    pub account: String,
    pub seq: u32,
    pub kind: String,
    pub amount: i64,
    pub note: Option<String>,
}

/// Event `seq` of `account`: every third with a note.
pub fn event(account: &str, seq: u32) -> Event {
    Event {
        account: account.into(),
        seq,
        kind: if seq.is_multiple_of(2) {
            "credit".into()
        } else {
            "debit".into()
        },
        amount: i64::from(seq) * 7 - 5000,
        note: seq.is_multiple_of(3).then(|| format!("note {seq}")),
    }
}

/// The put request of one event, as a hand-written program builds it.
pub fn write_request(event: &Event) -> WriteRequest {
    let item = event.to_item().expect("item");
    let put = PutRequest::builder()
        .set_item(Some(item))
        .build()
        .expect("put");
    WriteRequest::builder().put_request(put).build()
}

/// The hand-written Query loop: pages until LastEvaluatedKey is gone, each
/// item decoded into an `Event` (what the client hands back too); the
/// number of events.
pub async fn query(sdk: &aws_sdk_dynamodb::Client, table: &str, pk: &str) -> usize {
    let mut start = None;
    let mut items = Vec::new();
    loop {
        let out = sdk
            .query()
            .table_name(table)
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", "pk")
            .expression_attribute_values(":pk", AttributeValue::S(pk.to_owned()))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("query");
        for item in out.items.unwrap_or_default() {
            items.push(Event::from_item(item).expect("event"));
        }
        match out.last_evaluated_key {
            Some(key) => start = Some(key),
            None => break,
        }
    }
    items.len()
}

/// The hand-written batch loop: chunks of 25, each built as it is sent,
/// `in_flight` at once, each resending its UnprocessedItems until none are
/// left.
pub async fn batch_write(
    sdk: &aws_sdk_dynamodb::Client,
    table: &str,
    events: &[Event],
    in_flight: usize,
) {
    let requests = events.iter().map(write_request);
    send_chunks(sdk, table, requests, in_flight).await;
}

/// The same loop over requests all built before the first is sent: what a
/// program does that refuses the whole batch when one event cannot be
/// written (as `put_all` does).
pub async fn batch_write_built(
    sdk: &aws_sdk_dynamodb::Client,
    table: &str,
    events: &[Event],
    in_flight: usize,
) {
    let requests: Vec<WriteRequest> = events.iter().map(write_request).collect();
    send_chunks(sdk, table, requests, in_flight).await;
}

/// `requests` sent in chunks of 25, `in_flight` at once, each chunk
/// resending its UnprocessedItems until none are left.
async fn send_chunks(
    sdk: &aws_sdk_dynamodb::Client,
    table: &str,
    requests: impl IntoIterator<Item = WriteRequest>,
    in_flight: usize,
) {
    let mut requests = requests.into_iter();
    let chunks = std::iter::from_fn(|| {
        let chunk: Vec<WriteRequest> = requests.by_ref().take(25).collect();
        (!chunk.is_empty()).then_some(chunk)
    });
    stream::iter(chunks)
        .map(|mut pending| async move {
            while !pending.is_empty() {
                let out = sdk
                    .batch_write_item()
                    .request_items(table, pending)
                    .send()
                    .await
                    .expect("batch");
                pending = out
                    .unprocessed_items
                    .and_then(|mut u| u.remove(table))
                    .unwrap_or_default();
            }
        })
        .buffer_unordered(in_flight)
        .collect::<Vec<()>>()
        .await;
}

/// A hand-written PutItem of one event.
pub async fn put(sdk: &aws_sdk_dynamodb::Client, table: &str, event: &Event) {
    sdk.put_item()
        .table_name(table)
        .set_item(Some(event.to_item().expect("item")))
        .send()
        .await
        .expect("put");
}

/// A hand-written GetItem of one event, decoded.
pub async fn get(
    sdk: &aws_sdk_dynamodb::Client,
    table: &str,
    key: &PrimaryKey<Event>,
) -> Option<Event> {
    let out = sdk
        .get_item()
        .table_name(table)
        .set_key(Some(key.to_item()))
        .send()
        .await
        .expect("get");
    out.item.map(|item| Event::from_item(item).expect("event"))
}

/// An item as DynamoDB's JSON protocol spells it (the types events use).
pub fn item_json(item: &Item) -> serde_json::Value {
    let value = |value: &AttributeValue| match value {
        AttributeValue::S(s) => serde_json::json!({ "S": s }),
        AttributeValue::N(n) => serde_json::json!({ "N": n }),
        AttributeValue::Bool(b) => serde_json::json!({ "BOOL": b }),
        AttributeValue::Null(_) => serde_json::json!({ "NULL": true }),
        other => panic!("no JSON for {other:?} here"),
    };
    item.iter()
        .map(|(name, v)| (name.clone(), value(v)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}
