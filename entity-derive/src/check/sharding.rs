//! Rules for write-sharded partition keys (`#[pk(status, shards = 10)]`,
//! `pk(status, shards = 10)` in an index). A shard is picked by a stable
//! hash of the item's table key, so a read by key finds it, and a query
//! reads every shard and merges them.

use crate::ctxt::Ctxt;
use crate::model::{Entity, IndexKind, Shards};

pub fn check(cx: &Ctxt, entity: &Entity) {
    for index in std::iter::once(&entity.primary).chain(&entity.indexes) {
        // An LSI's partition key is the table's, checked there.
        let own_pk = index.kind != IndexKind::Local || index.pk_written;
        if let (Some(shards), true) = (&index.pk.shards, own_pk) {
            count_in_range(cx, shards);
            // A number key is one integer stored as `N`: no text to suffix.
            if index.pk.number.is_some() {
                cx.error_at(shards.token, "`shards` adds a text suffix to the key, and a `number` key is one integer stored as a number: remove `number` (the key is then text) or `shards`");
            }
            // The table's shard comes from the sort key: with no sort key
            // text, every item would land in one shard.
            if index.kind == IndexKind::Primary && sort_key_is_constant(entity) {
                let which = match entity.primary.sk {
                    Some(_) => "this table's sort key has no fields",
                    None => "this table has no sort key",
                };
                cx.error_at(shards.token, format!("a sharded table partition key picks each item's shard from its sort key, and {which}, so every item would land in the same shard: list the fields that tell items apart in `#[sk(...)]`, such as `#[sk(task_id)]`, or shard a secondary index's partition key instead"));
            }
            // A collection's members share one partition, which a shard
            // suffix picked per item would split.
            if let Some(collection) = &index.collection {
                cx.error_at(collection.span, "a collection reads its members from one partition, and `shards` spreads this key over several: sharded partitions cannot join a collection; remove `shards` or `collection`");
            }
        }
        if let Some(shards) = index.sk.as_ref().and_then(|sk| sk.shards.as_ref()) {
            cx.error_at(shards.token, "`shards` spreads a partition key over several partitions; a sort key orders items inside one: move `shards` to the partition key");
        }
    }
}

/// DynamoDB needs no sharding for one shard, and a query reads every shard.
fn count_in_range(cx: &Ctxt, shards: &Shards) {
    if !Shards::RANGE.contains(&shards.count) {
        cx.error_at(
            shards.literal,
            format!(
                "`shards` is from {} to {}: one shard is no sharding, and every query reads all shards, so more than {} costs more than it spreads",
                Shards::RANGE.start(),
                Shards::RANGE.end(),
                Shards::RANGE.end()
            ),
        );
    }
}

/// The table has no sort key, or one with no composites (literal text only).
fn sort_key_is_constant(entity: &Entity) -> bool {
    entity
        .primary
        .sk
        .as_ref()
        .is_none_or(|sk| sk.composites.is_empty())
}
