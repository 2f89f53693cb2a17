//! What a request will consume, guessed from its typed input before it is
//! sent: a write from the sizes of the items it writes (a unit per
//! kilobyte, twice that in a transaction), a batch read from its keys (the
//! least they can cost), another read from what reads of this limit
//! consumed lately (a read request names no item sizes).

use super::{Kind, RateLimit};
use crate::limits::item_total;
use crate::stats::Operation;
use aws_sdk_dynamodb::operation::{
    batch_get_item::BatchGetItemInput, batch_write_item::BatchWriteItemInput,
    put_item::PutItemInput, transact_write_items::TransactWriteItemsInput,
};
use aws_smithy_runtime_api::client::interceptors::context::Input;

/// Bytes a write capacity unit covers.
const WRITE_UNIT: usize = 1024;

/// The kind of capacity `operation` consumes, and the estimate of what
/// `input` will.
pub(crate) fn estimate(operation: Operation, input: &Input, limit: &RateLimit) -> (Kind, f64) {
    if let Some(i) = input.downcast_ref::<BatchGetItemInput>() {
        // Each key found costs at least half a unit (a whole one read
        // strongly consistent): the least the request can consume, known
        // before it is sent, so chunks sent together wait for each other.
        let keys = i.request_items.iter().flat_map(|r| r.values());
        let units = keys
            .map(|k| {
                let each = if k.consistent_read == Some(true) {
                    1.0
                } else {
                    0.5
                };
                each * k.keys.len() as f64
            })
            .sum();
        return (Kind::Read, units);
    }
    if operation.is_read() {
        return (Kind::Read, limit.typical(Kind::Read));
    }
    let units = if let Some(i) = input.downcast_ref::<BatchWriteItemInput>() {
        let requests = i.request_items.iter().flat_map(|r| r.values()).flatten();
        requests
            .map(|r| {
                r.put_request
                    .as_ref()
                    .map_or(1.0, |p| write_units(item_total(&p.item)))
            })
            .sum()
    } else if let Some(i) = input.downcast_ref::<PutItemInput>() {
        write_units(i.item.as_ref().map_or(0, item_total))
    } else if let Some(i) = input.downcast_ref::<TransactWriteItemsInput>() {
        let items = i.transact_items.iter().flatten();
        items
            .map(|t| {
                2.0 * t
                    .put
                    .as_ref()
                    .map_or(1.0, |p| write_units(item_total(&p.item)))
            })
            .sum()
    } else {
        // An update or delete: the stored item's size is not in the request.
        1.0
    };
    (Kind::Write, units)
}

/// Write units of an item of `bytes`.
fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(WRITE_UNIT).max(1) as f64
}
