//! Reading requests and answers: the typed input of each operation (table,
//! index, partition keys, filter, limit, item sizes), asking it for its
//! consumed capacity, and the typed output or error of each attempt.
//!
//! The SDK hands interceptors its input, output and error type-erased; each
//! is downcast to the operation's own type, one `TypeId` comparison per
//! operation tried.

use super::config::KeyMode;
use super::record::{KeyLabel, Operation, Outcome, RequestFacts};
use crate::limits::item_total;
use aws_sdk_dynamodb::operation::{
    batch_get_item::{BatchGetItemError, BatchGetItemInput, BatchGetItemOutput},
    batch_write_item::{BatchWriteItemError, BatchWriteItemInput, BatchWriteItemOutput},
    delete_item::{DeleteItemError, DeleteItemInput, DeleteItemOutput},
    get_item::{GetItemError, GetItemInput, GetItemOutput},
    put_item::{PutItemError, PutItemInput, PutItemOutput},
    query::{QueryError, QueryInput, QueryOutput},
    scan::{ScanError, ScanInput, ScanOutput},
    transact_get_items::{TransactGetItemsError, TransactGetItemsInput, TransactGetItemsOutput},
    transact_write_items::{
        TransactWriteItemsError, TransactWriteItemsInput, TransactWriteItemsOutput,
    },
    update_item::{UpdateItemError, UpdateItemInput, UpdateItemOutput},
};
use aws_sdk_dynamodb::types::{AttributeValue, ConsumedCapacity, ReturnConsumedCapacity};
use aws_smithy_runtime_api::client::interceptors::context::{Error, Input, Output};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

type Item = HashMap<String, AttributeValue>;

/// Turns partition key values into [`KeyLabel`]s.
#[derive(Debug)]
pub(crate) struct Labeler {
    pub(crate) mode: KeyMode,
    pub(crate) hash_key: std::collections::hash_map::RandomState,
    pub(crate) partition_attribute: String,
}

impl Labeler {
    fn label(&self, value: &AttributeValue) -> Option<KeyLabel> {
        let bytes: &[u8] = match value {
            AttributeValue::S(s) | AttributeValue::N(s) => s.as_bytes(),
            AttributeValue::B(b) => b.as_ref(),
            _ => return None,
        };
        Some(match self.mode {
            KeyMode::Raw => KeyLabel::Raw(String::from_utf8_lossy(bytes).into_owned()),
            KeyMode::Hashed => {
                let mut hasher = self.hash_key.build_hasher();
                hasher.write(bytes);
                KeyLabel::Hashed(hasher.finish())
            }
        })
    }

    /// The partition of an item or key map: its partition key attribute,
    /// or its only attribute.
    fn of_item(&self, item: Option<&Item>) -> Option<KeyLabel> {
        let item = item?;
        match item.get(&self.partition_attribute) {
            Some(value) => self.label(value),
            None if item.len() == 1 => item.values().next().and_then(|v| self.label(v)),
            None => None,
        }
    }

    /// The partition of a query: the value of the first equality of its key
    /// condition (the framework writes the partition key first).
    fn of_query(&self, input: &QueryInput) -> Option<KeyLabel> {
        let condition = input.key_condition_expression.as_deref()?;
        let first = condition
            .split(" AND ")
            .next()?
            .trim()
            .trim_start_matches('(');
        let (_, placeholder) = first.split_once('=')?;
        let placeholder = placeholder.trim().trim_end_matches(')');
        let values = input.expression_attribute_values.as_ref()?;
        self.label(values.get(placeholder)?)
    }
}

/// Sets `ReturnConsumedCapacity: TOTAL` when the caller left it unset, and
/// names the operation, or `None` for an operation not followed.
pub(crate) fn ask_capacity(input: &mut Input) -> Option<Operation> {
    macro_rules! ask {
        ($($ty:ty => $op:expr),* $(,)?) => {
            $(if let Some(i) = input.downcast_mut::<$ty>() {
                i.return_consumed_capacity
                    .get_or_insert(ReturnConsumedCapacity::Total);
                return Some($op);
            })*
        };
    }
    ask!(
        QueryInput => Operation::Query,
        GetItemInput => Operation::GetItem,
        PutItemInput => Operation::PutItem,
        UpdateItemInput => Operation::UpdateItem,
        DeleteItemInput => Operation::DeleteItem,
        ScanInput => Operation::Scan,
        BatchGetItemInput => Operation::BatchGetItem,
        BatchWriteItemInput => Operation::BatchWriteItem,
        TransactGetItemsInput => Operation::TransactGetItems,
        TransactWriteItemsInput => Operation::TransactWriteItems,
    );
    None
}

/// Sets `ReturnConsumedCapacity` (when the caller left it unset) and reads
/// what the input says, or `None` for an operation not followed.
pub(crate) fn request_facts(input: &mut Input, labeler: &Labeler) -> Option<RequestFacts> {
    ask_capacity(input)?;
    if let Some(i) = input.downcast_mut::<QueryInput>() {
        let keys = labeler.of_query(i).into_iter().collect();
        return Some(RequestFacts {
            filtered: i.filter_expression.is_some(),
            limited: i.limit.is_some(),
            continuation: i.exclusive_start_key.is_some(),
            ..facts(Operation::Query, &i.table_name, i.index_name.clone(), keys)
        });
    }
    if let Some(i) = input.downcast_mut::<GetItemInput>() {
        let keys = labeler.of_item(i.key.as_ref()).into_iter().collect();
        return Some(facts(Operation::GetItem, &i.table_name, None, keys));
    }
    if let Some(i) = input.downcast_mut::<PutItemInput>() {
        let keys = labeler.of_item(i.item.as_ref()).into_iter().collect();
        return Some(RequestFacts {
            largest_item: i.item.as_ref().map_or(0, item_total),
            ..facts(Operation::PutItem, &i.table_name, None, keys)
        });
    }
    if let Some(i) = input.downcast_mut::<UpdateItemInput>() {
        let keys = labeler.of_item(i.key.as_ref()).into_iter().collect();
        return Some(facts(Operation::UpdateItem, &i.table_name, None, keys));
    }
    if let Some(i) = input.downcast_mut::<DeleteItemInput>() {
        let keys = labeler.of_item(i.key.as_ref()).into_iter().collect();
        return Some(facts(Operation::DeleteItem, &i.table_name, None, keys));
    }
    if let Some(i) = input.downcast_mut::<ScanInput>() {
        return Some(RequestFacts {
            filtered: i.filter_expression.is_some(),
            limited: i.limit.is_some(),
            continuation: i.exclusive_start_key.is_some(),
            ..facts(
                Operation::Scan,
                &i.table_name,
                i.index_name.clone(),
                Vec::new(),
            )
        });
    }
    batch_facts(input, labeler)
}

fn batch_facts(input: &mut Input, labeler: &Labeler) -> Option<RequestFacts> {
    if let Some(i) = input.downcast_mut::<BatchGetItemInput>() {
        let requests = i.request_items.as_ref()?;
        let table = requests.keys().next().cloned();
        let keys = (requests.values().flat_map(|r| &r.keys))
            .filter_map(|key| labeler.of_item(Some(key)))
            .collect();
        return Some(facts(Operation::BatchGetItem, &table, None, keys));
    }
    if let Some(i) = input.downcast_mut::<BatchWriteItemInput>() {
        let requests = i.request_items.as_ref()?;
        let table = requests.keys().next().cloned();
        let (mut keys, mut largest) = (Vec::new(), 0);
        for request in requests.values().flatten() {
            if let Some(put) = &request.put_request {
                largest = largest.max(item_total(&put.item));
                keys.extend(labeler.of_item(Some(&put.item)));
            }
            if let Some(delete) = &request.delete_request {
                keys.extend(labeler.of_item(Some(&delete.key)));
            }
        }
        return Some(RequestFacts {
            largest_item: largest,
            ..facts(Operation::BatchWriteItem, &table, None, keys)
        });
    }
    if let Some(i) = input.downcast_mut::<TransactGetItemsInput>() {
        let gets = i
            .transact_items
            .iter()
            .flatten()
            .filter_map(|t| t.get.as_ref());
        let table = gets.clone().next().map(|g| g.table_name.clone());
        let keys = gets.filter_map(|g| labeler.of_item(Some(&g.key))).collect();
        return Some(facts(Operation::TransactGetItems, &table, None, keys));
    }
    if let Some(i) = input.downcast_mut::<TransactWriteItemsInput>() {
        let (mut table, mut keys, mut largest) = (None, Vec::new(), 0);
        for item in i.transact_items.iter().flatten() {
            let (name, key) = if let Some(put) = &item.put {
                largest = largest.max(item_total(&put.item));
                (&put.table_name, &put.item)
            } else if let Some(update) = &item.update {
                (&update.table_name, &update.key)
            } else if let Some(delete) = &item.delete {
                (&delete.table_name, &delete.key)
            } else if let Some(check) = &item.condition_check {
                (&check.table_name, &check.key)
            } else {
                continue;
            };
            table.get_or_insert_with(|| name.clone());
            keys.extend(labeler.of_item(Some(key)));
        }
        return Some(RequestFacts {
            largest_item: largest,
            ..facts(Operation::TransactWriteItems, &table, None, keys)
        });
    }
    None
}

fn facts(
    operation: Operation,
    table: &Option<String>,
    index: Option<String>,
    keys: Vec<KeyLabel>,
) -> RequestFacts {
    RequestFacts {
        operation,
        table: table.clone().unwrap_or_default(),
        index,
        keys,
        filtered: false,
        limited: false,
        continuation: false,
        largest_item: 0,
    }
}

/// What a successful attempt's output says.
pub(crate) fn outcome(operation: Operation, output: &Output) -> Outcome {
    let mut out = Outcome::default();
    match operation {
        Operation::Query => {
            if let Some(o) = output.downcast_ref::<QueryOutput>() {
                add_capacity(&mut out, operation, o.consumed_capacity.as_ref());
                out.returned = o.count.max(0) as u64;
                out.scanned = o.scanned_count.max(0) as u64;
            }
        }
        Operation::Scan => {
            if let Some(o) = output.downcast_ref::<ScanOutput>() {
                add_capacity(&mut out, operation, o.consumed_capacity.as_ref());
                out.returned = o.count.max(0) as u64;
                out.scanned = o.scanned_count.max(0) as u64;
            }
        }
        Operation::GetItem => {
            if let Some(o) = output.downcast_ref::<GetItemOutput>() {
                add_capacity(&mut out, operation, o.consumed_capacity.as_ref());
                out.returned = u64::from(o.item.is_some());
                out.scanned = out.returned;
                out.largest_item = o.item.as_ref().map_or(0, item_total);
            }
        }
        Operation::PutItem => single::<PutItemOutput>(&mut out, operation, output, |o| {
            o.consumed_capacity.as_ref()
        }),
        Operation::UpdateItem => single::<UpdateItemOutput>(&mut out, operation, output, |o| {
            o.consumed_capacity.as_ref()
        }),
        Operation::DeleteItem => single::<DeleteItemOutput>(&mut out, operation, output, |o| {
            o.consumed_capacity.as_ref()
        }),
        Operation::BatchGetItem => {
            if let Some(o) = output.downcast_ref::<BatchGetItemOutput>() {
                for c in o.consumed_capacity.iter().flatten() {
                    add_capacity(&mut out, operation, Some(c));
                }
                out.returned = o
                    .responses
                    .iter()
                    .flat_map(|r| r.values())
                    .map(Vec::len)
                    .sum::<usize>() as u64;
                out.scanned = out.returned;
            }
        }
        Operation::BatchWriteItem => {
            if let Some(o) = output.downcast_ref::<BatchWriteItemOutput>() {
                for c in o.consumed_capacity.iter().flatten() {
                    add_capacity(&mut out, operation, Some(c));
                }
            }
        }
        Operation::TransactGetItems => {
            if let Some(o) = output.downcast_ref::<TransactGetItemsOutput>() {
                for c in o.consumed_capacity.iter().flatten() {
                    add_capacity(&mut out, operation, Some(c));
                }
                out.returned = o.responses.as_ref().map_or(0, Vec::len) as u64;
                out.scanned = out.returned;
            }
        }
        Operation::TransactWriteItems => {
            if let Some(o) = output.downcast_ref::<TransactWriteItemsOutput>() {
                for c in o.consumed_capacity.iter().flatten() {
                    add_capacity(&mut out, operation, Some(c));
                }
            }
        }
    }
    out
}

fn single<T: std::fmt::Debug + Send + Sync + 'static>(
    out: &mut Outcome,
    operation: Operation,
    output: &Output,
    capacity: impl Fn(&T) -> Option<&ConsumedCapacity>,
) {
    if let Some(o) = output.downcast_ref::<T>() {
        add_capacity(out, operation, capacity(o));
    }
}

/// Adds a `ConsumedCapacity`: its read and write units when the server
/// splits them, else its total as the operation's kind.
fn add_capacity(out: &mut Outcome, operation: Operation, capacity: Option<&ConsumedCapacity>) {
    let Some(c) = capacity else { return };
    match (c.read_capacity_units, c.write_capacity_units) {
        (None, None) => {
            let total = c.capacity_units.unwrap_or(0.0);
            if operation.is_read() {
                out.read_units += total;
            } else {
                out.write_units += total;
            }
        }
        (read, write) => {
            out.read_units += read.unwrap_or(0.0);
            out.write_units += write.unwrap_or(0.0);
        }
    }
}

/// Why an attempt was throttled, or `None` if the error is not a throttle:
/// the server's throttling reasons (`TableReadProvisionedThroughputExceeded`,
/// `IndexWriteKeyRangeThroughputExceeded`, ...) when it gives them, else
/// the error's name.
pub(crate) fn throttle_reasons(operation: Operation, error: &Error) -> Option<Vec<String>> {
    macro_rules! reasons {
        ($ty:ident) => {{
            let e = error.downcast_ref::<$ty>()?;
            match e {
                $ty::ProvisionedThroughputExceededException(e) => Some(named(
                    e.throttling_reasons(),
                    "ProvisionedThroughputExceeded",
                )),
                $ty::ThrottlingException(e) => Some(named(e.throttling_reasons(), "Throttling")),
                $ty::RequestLimitExceeded(_) => Some(vec!["RequestLimitExceeded".to_owned()]),
                _ => None,
            }
        }};
    }
    match operation {
        Operation::GetItem => reasons!(GetItemError),
        Operation::PutItem => reasons!(PutItemError),
        Operation::UpdateItem => reasons!(UpdateItemError),
        Operation::DeleteItem => reasons!(DeleteItemError),
        Operation::Query => reasons!(QueryError),
        Operation::Scan => reasons!(ScanError),
        Operation::BatchGetItem => reasons!(BatchGetItemError),
        Operation::BatchWriteItem => reasons!(BatchWriteItemError),
        Operation::TransactGetItems => reasons!(TransactGetItemsError),
        Operation::TransactWriteItems => reasons!(TransactWriteItemsError),
    }
}

fn named(reasons: &[aws_sdk_dynamodb::types::ThrottlingReason], fallback: &str) -> Vec<String> {
    let named: Vec<String> = reasons
        .iter()
        .filter_map(|r| r.reason().map(str::to_owned))
        .collect();
    if named.is_empty() {
        vec![fallback.to_owned()]
    } else {
        named
    }
}
