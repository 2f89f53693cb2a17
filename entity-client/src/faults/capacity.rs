//! Metering: a metering proxy asks the server for the capacity each request
//! consumes and sums what the answers report, per operation, so a test or a
//! benchmark can say what a write costs without the client asking.

use serde_json::{json, Value};

/// The capacity the server reported for one operation, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Capacity {
    /// Answers that reported consumed capacity.
    pub reports: usize,
    /// Read capacity units.
    pub read: f64,
    /// Write capacity units.
    pub write: f64,
}

/// The operations that take `ReturnConsumedCapacity`.
const METERED: &[&str] = &[
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactGetItems",
    "TransactWriteItems",
    "ExecuteStatement",
    "BatchExecuteStatement",
    "ExecuteTransaction",
];

/// The operations whose `CapacityUnits` are read units when the answer
/// does not say.
const READS: &[&str] = &[
    "GetItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "TransactGetItems",
];

/// Whether requests of the operation named `operation` can be metered.
pub(super) fn is_metered(operation: &str) -> bool {
    METERED.contains(&operation)
}

/// The request body with `"ReturnConsumedCapacity": "TOTAL"` added, unless
/// it asks for capacity already (or is not a JSON object): `None` when it
/// stays as it is. (The body signature this breaks is not checked by local
/// servers.)
pub(super) fn ask_for_capacity(body: &[u8]) -> Option<Vec<u8>> {
    let Ok(Value::Object(mut body)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    if body.contains_key("ReturnConsumedCapacity") {
        return None;
    }
    body.insert("ReturnConsumedCapacity".into(), json!("TOTAL"));
    Some(Value::Object(body).to_string().into_bytes())
}

/// The capacity an answer of the operation named `operation` reports: its
/// `ConsumedCapacity`, one object or one per table. An entry that does not
/// split its `CapacityUnits` into `ReadCapacityUnits` and
/// `WriteCapacityUnits` counts them as reads when the operation only reads,
/// as writes otherwise. `None` when the answer reports none.
pub(super) fn consumed(operation: &str, answer: &[u8]) -> Option<Capacity> {
    let answer = serde_json::from_slice::<Value>(answer).ok()?;
    let read = READS.contains(&operation);
    let entries = match answer.get("ConsumedCapacity")? {
        Value::Array(entries) => entries.iter().collect(),
        entry @ Value::Object(_) => vec![entry],
        _ => return None,
    };
    let units = |entry: &Value, field: &str| entry.get(field).and_then(Value::as_f64);
    let mut sum = Capacity {
        reports: 1,
        ..Capacity::default()
    };
    for entry in entries {
        let (reads, writes) = (
            units(entry, "ReadCapacityUnits"),
            units(entry, "WriteCapacityUnits"),
        );
        if reads.is_some() || writes.is_some() {
            sum.read += reads.unwrap_or(0.0);
            sum.write += writes.unwrap_or(0.0);
        } else if read {
            sum.read += units(entry, "CapacityUnits").unwrap_or(0.0);
        } else {
            sum.write += units(entry, "CapacityUnits").unwrap_or(0.0);
        }
    }
    Some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_summed_over_tables_and_split_only_when_the_answer_does_not() {
        let one = br#"{ "ConsumedCapacity": { "TableName": "a", "CapacityUnits": 1.0 } }"#;
        assert_eq!(
            consumed("GetItem", one).map(|c| (c.read, c.write)),
            Some((1.0, 0.0))
        );
        assert_eq!(
            consumed("PutItem", one).map(|c| (c.read, c.write)),
            Some((0.0, 1.0))
        );
        let split = br#"{ "ConsumedCapacity": [
            { "TableName": "a", "CapacityUnits": 5.0, "ReadCapacityUnits": 1.0, "WriteCapacityUnits": 4.0 },
            { "TableName": "b", "CapacityUnits": 2.0 }
        ]}"#;
        assert_eq!(
            consumed("TransactWriteItems", split).map(|c| (c.reports, c.read, c.write)),
            Some((1, 1.0, 6.0))
        );
        assert_eq!(consumed("PutItem", b"{}"), None);
        assert_eq!(consumed("PutItem", b"not json"), None);
    }

    #[test]
    fn capacity_is_asked_for_unless_the_request_asks_already() {
        let asked = ask_for_capacity(br#"{"TableName":"a"}"#).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&asked).unwrap(),
            json!({ "TableName": "a", "ReturnConsumedCapacity": "TOTAL" })
        );
        let indexes = br#"{"TableName":"a","ReturnConsumedCapacity":"INDEXES"}"#;
        assert_eq!(ask_for_capacity(indexes), None);
        assert_eq!(ask_for_capacity(b"[]"), None);
    }
}
