//! Partial batch results: a batch request split into the part that reaches
//! the server and the part answered as unprocessed, and the server's answer
//! joined with the held-back part, shaped as DynamoDB shapes its own.

use serde_json::{json, Map, Value};

/// The answer field that lists `operation`'s unprocessed requests.
pub(super) fn unprocessed_field(operation: &str) -> &'static str {
    match operation {
        "BatchWriteItem" => "UnprocessedItems",
        _ => "UnprocessedKeys",
    }
}

/// A table's entry in a batch: its write requests (BatchWriteItem: a list)
/// or its keys (BatchGetItem: `Keys` beside the table's read settings).
fn entries(table: &mut Value) -> Option<&mut Vec<Value>> {
    if table.is_array() {
        table.as_array_mut()
    } else {
        table.get_mut("Keys").and_then(Value::as_array_mut)
    }
}

/// The requests or keys of every table in a batch request.
pub(super) fn batch_items(body: &Value) -> usize {
    let Some(tables) = body.get("RequestItems").and_then(Value::as_object) else {
        return 0;
    };
    tables
        .values()
        .filter_map(|table| table.as_array().or_else(|| table.get("Keys")?.as_array()))
        .map(Vec::len)
        .sum()
}

/// Keeps the first `forward` requests or keys of the batch request `body`
/// (in table-name order, then request order) and returns the rest, shaped
/// as the `RequestItems` of a new request, which is what DynamoDB answers as
/// unprocessed. Tables left empty are removed.
pub(super) fn split_batch(body: &mut Value, mut forward: usize) -> Map<String, Value> {
    let mut held_back = Map::new();
    let Some(tables) = body.get_mut("RequestItems").and_then(Value::as_object_mut) else {
        return held_back;
    };
    for (name, table) in tables.iter_mut() {
        let Some(items) = entries(table) else {
            continue;
        };
        let kept = forward.min(items.len());
        forward -= kept;
        let rest = items.split_off(kept);
        if rest.is_empty() {
            continue;
        }
        // Held-back keys keep their table's read settings (ConsistentRead,
        // projection), as DynamoDB's UnprocessedKeys do.
        let mut unprocessed = table.clone();
        if let Some(items) = entries(&mut unprocessed) {
            *items = rest;
        }
        held_back.insert(name.clone(), unprocessed);
    }
    tables.retain(|_, table| entries(table).is_some_and(|e| !e.is_empty()));
    held_back
}

/// The answer to a batch none of whose requests reached the server (which
/// refuses an empty batch): everything held back is unprocessed.
pub(super) fn nothing_processed(operation: &str, held_back: Map<String, Value>) -> Value {
    let mut answer = Map::new();
    answer.insert(
        unprocessed_field(operation).into(),
        Value::Object(held_back),
    );
    if operation == "BatchGetItem" {
        answer.insert("Responses".into(), json!({}));
    }
    Value::Object(answer)
}

/// Adds the held-back requests or keys to the server's own unprocessed
/// ones (`field` of its answer).
pub(super) fn merge_unprocessed(answer: &mut Value, field: &str, held_back: Map<String, Value>) {
    let Some(answer) = answer.as_object_mut() else {
        return;
    };
    let unprocessed = answer.entry(field).or_insert_with(|| json!({}));
    if !unprocessed.is_object() {
        *unprocessed = json!({});
    }
    let Some(unprocessed) = unprocessed.as_object_mut() else {
        return;
    };
    for (table, mut held) in held_back {
        match unprocessed.get_mut(&table).and_then(entries) {
            Some(theirs) => {
                theirs.extend(entries(&mut held).map(std::mem::take).unwrap_or_default())
            }
            None => {
                unprocessed.insert(table, held);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_write_splits_in_table_then_request_order() {
        let mut body = json!({ "RequestItems": {
            "a": [{"PutRequest": {"Item": {"pk": {"S": "1"}}}}, {"PutRequest": {"Item": {"pk": {"S": "2"}}}}],
            "b": [{"DeleteRequest": {"Key": {"pk": {"S": "3"}}}}],
        }});
        let held = split_batch(&mut body, 1);
        assert_eq!(batch_items(&body), 1);
        assert_eq!(
            body["RequestItems"]["a"][0]["PutRequest"]["Item"]["pk"]["S"],
            "1"
        );
        assert!(body["RequestItems"].get("b").is_none());
        assert_eq!(held["a"][0]["PutRequest"]["Item"]["pk"]["S"], "2");
        assert_eq!(held["b"][0]["DeleteRequest"]["Key"]["pk"]["S"], "3");
    }

    #[test]
    fn held_back_keys_keep_their_settings_and_join_the_servers_unprocessed_keys() {
        let mut body = json!({ "RequestItems": { "a": {
            "Keys": [{"pk": {"S": "1"}}, {"pk": {"S": "2"}}, {"pk": {"S": "3"}}],
            "ConsistentRead": true,
        }}});
        let held = split_batch(&mut body, 2);
        assert_eq!(batch_items(&body), 2);
        assert_eq!(held["a"]["ConsistentRead"], true);
        let mut answer = json!({ "Responses": {}, "UnprocessedKeys": { "a": {
            "Keys": [{"pk": {"S": "2"}}], "ConsistentRead": true,
        }}});
        merge_unprocessed(&mut answer, "UnprocessedKeys", held);
        assert_eq!(
            answer["UnprocessedKeys"]["a"]["Keys"],
            json!([{"pk": {"S": "2"}}, {"pk": {"S": "3"}}])
        );
    }

    #[test]
    fn odd_bodies_split_into_nothing_and_merge_into_nothing() {
        for mut body in [json!(null), json!([1]), json!({ "RequestItems": 3 })] {
            assert!(split_batch(&mut body, 1).is_empty());
            assert_eq!(batch_items(&body), 0);
        }
        let mut held = Map::new();
        held.insert("a".into(), json!([1]));
        let mut answer = json!("not an object");
        merge_unprocessed(&mut answer, "UnprocessedItems", held.clone());
        assert_eq!(answer, json!("not an object"));
        let mut answer = json!({ "UnprocessedItems": 3 });
        merge_unprocessed(&mut answer, "UnprocessedItems", held);
        assert_eq!(answer["UnprocessedItems"]["a"], json!([1]));
    }
}
