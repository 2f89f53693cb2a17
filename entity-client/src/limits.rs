//! DynamoDB's limits, checked before sending so a bad request fails with a
//! clear error instead of a round trip.

use crate::error::ValidationError;
use crate::keys::{Gathered, KeyRef};
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::__private::collection::str_eq;
use entity_core::size::value_size_bound;
pub use entity_core::size::{
    item_size, item_total, value_size, ItemSize, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES,
};
use entity_core::{EntityModel, IndexModel, Item, ItemWriter, KeyModel};

/// The largest item DynamoDB stores: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;
/// The most items in one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;
/// The most keys in one BatchGetItem.
pub const BATCH_GET_CHUNK: usize = 100;
/// The most requests in one BatchWriteItem.
pub const BATCH_WRITE_CHUNK: usize = 25;
/// The shortest table name.
pub const MIN_TABLE_NAME_LENGTH: usize = 3;
/// The longest table name.
pub const MAX_TABLE_NAME_LENGTH: usize = 255;
/// The longest idempotency (client request) token.
pub const MAX_IDEMPOTENCY_TOKEN_LENGTH: usize = 36;
/// The most segments of a parallel scan.
pub const MAX_SCAN_SEGMENTS: u32 = 1_000_000;
/// The largest `Limit` the wire format carries (DynamoDB's is an `i32`).
pub const MAX_LIMIT: u32 = i32::MAX.unsigned_abs();

/// Checks an item's size and every key attribute the entity writes.
pub fn check_item(model: &EntityModel, item: &Item) -> Result<(), ValidationError> {
    check_item_key(model, item).map(drop)
}

/// [`check_item`], and the item's table key, read on the way (its values
/// borrowed from the item): `None` when its table key attributes are
/// missing or neither strings nor numbers.
pub(crate) fn check_item_key<'a>(
    model: &EntityModel,
    item: &'a Item,
) -> Result<Option<KeyRef<'a>>, ValidationError> {
    // One pass over the attributes: a bound on the item's size that reads
    // no number's digits (nearly every item is far below the limit, and
    // only one near it is sized exactly), and the key attributes' values,
    // found without hashing their names.
    let primary = &model.primary;
    let attributes = |index: &IndexModel| [Some(index.pk.attribute), index.sk.map(|k| k.attribute)];
    let lengths = model
        .indexes
        .iter()
        .fold(Gathered::lengths(attributes(primary)), |lengths, index| {
            lengths | Gathered::lengths(attributes(index))
        });
    let mut bound = 0;
    let gathered = Gathered::gather(item, lengths, |(name, value)| {
        bound += name.len() + value_size_bound(value);
    });
    if bound > MAX_ITEM_BYTES {
        check_size(model, item)?;
    }
    let pk = gathered.get(item, primary.pk.attribute);
    check_key_value(&primary.pk, pk, true)?;
    let sk = primary.sk.map(|key| gathered.get(item, key.attribute));
    if let (Some(key), Some(sk)) = (&primary.sk, sk) {
        check_key_value(key, sk, false)?;
        if let Some(AttributeValue::S(sk)) = sk {
            check_not_snapshot(model, sk)?;
        }
    }
    for index in model.indexes {
        check_key_value(&index.pk, gathered.get(item, index.pk.attribute), true)?;
        if let Some(key) = &index.sk {
            check_key_value(key, gathered.get(item, key.attribute), false)?;
        }
    }
    Ok(KeyRef::of_values(pk, sk))
}

/// Whether [`check_written`] can check the items of entities `model`
/// describes: every key attribute is a composed key of its own (none is a
/// field's attribute, no index is keyed on fields' own attributes), so the
/// writer notes each. Decided once per entity, at compile time.
pub(crate) const fn checked_as_written(model: &EntityModel) -> bool {
    let mut i = 0;
    while i <= model.indexes.len() {
        let index = match i {
            0 => &model.primary,
            _ => &model.indexes[i - 1],
        };
        if !index.multi_attribute.is_empty() {
            return false;
        }
        let sk = match index.sk {
            Some(sk) => sk.attribute,
            None => "",
        };
        let mut f = 0;
        while f < model.fields.len() {
            let attribute = model.fields[f].attribute;
            if str_eq(attribute, index.pk.attribute) || str_eq(attribute, sk) {
                return false;
            }
            f += 1;
        }
        i += 1;
    }
    true
}

/// [`check_item_key`] for an item still in the writer that wrote it,
/// holding its table key ([`ItemWriter::holding_table_key`]), of an entity
/// [`checked_as_written`]: nothing is read from the item. `Ok(None)` when
/// the writer cannot tell (its size bound is over the limit, or it holds
/// no table key): check the finished item instead.
pub(crate) fn check_written<'a>(
    model: &EntityModel,
    writer: &'a ItemWriter,
) -> Result<Option<KeyRef<'a>>, ValidationError> {
    let primary = &model.primary;
    let (pk, sk) = writer.table_key();
    if writer.size_bound() > MAX_ITEM_BYTES || pk.is_none() || sk.is_some() != primary.sk.is_some()
    {
        return Ok(None);
    }
    let suspect = writer.suspect_keys();
    if !suspect.is_empty() {
        // In the order `check_item_key` checks them.
        let indexes = std::iter::once(primary).chain(model.indexes);
        let keys = indexes.flat_map(|index| {
            [
                Some((&index.pk, true)),
                index.sk.as_ref().map(|sk| (sk, false)),
            ]
        });
        for (key, partition) in keys.flatten() {
            if let Some(&(attribute, length)) = suspect.iter().find(|(a, _)| *a == key.attribute) {
                check_key_length(attribute, length, partition)?;
            }
        }
    }
    Ok(KeyRef::of_values(pk, primary.sk.map(|_| sk)))
}

/// Refuses an item over DynamoDB's size limit.
fn check_size(model: &EntityModel, item: &Item) -> Result<(), ValidationError> {
    let size = item_size(item);
    if size.total > MAX_ITEM_BYTES {
        return Err(ValidationError::ItemTooLarge {
            entity: model.name,
            size: size.total,
            limit: MAX_ITEM_BYTES,
            largest: size.attributes.into_iter().next().unwrap_or_default(),
        });
    }
    Ok(())
}

/// Checks a key attribute's value when it is a string (see [`check_key`]).
fn check_key_value(
    key: &KeyModel,
    value: Option<&AttributeValue>,
    partition: bool,
) -> Result<(), ValidationError> {
    match value {
        Some(AttributeValue::S(text)) => check_key(key.attribute, text, partition),
        _ => Ok(()),
    }
}

/// Checks one key value: not empty, not over its length limit.
pub fn check_key(attribute: &str, value: &str, partition: bool) -> Result<(), ValidationError> {
    check_key_length(attribute, value.len(), partition)
}

/// [`check_key`] of a value `length` bytes long.
fn check_key_length(
    attribute: &str,
    length: usize,
    partition: bool,
) -> Result<(), ValidationError> {
    let (kind, limit) = if partition {
        ("partition", MAX_PARTITION_KEY_BYTES)
    } else {
        ("sort", MAX_SORT_KEY_BYTES)
    };
    if length == 0 {
        return Err(ValidationError::EmptyKey {
            attribute: attribute.to_owned(),
        });
    }
    if length > limit {
        return Err(ValidationError::KeyTooLong {
            attribute: attribute.to_owned(),
            kind,
            length,
            limit,
        });
    }
    Ok(())
}

/// Checks a table key.
pub fn check_primary_key<E: entity_core::Entity>(
    key: &entity_core::PrimaryKey<E>,
) -> Result<(), ValidationError> {
    check_key(key.pk_attribute, &key.pk, true)?;
    if let Some((attribute, value)) = &key.sk {
        check_key(attribute, value, false)?;
        // Decided per entity when the client is compiled.
        if E::MODEL.lifecycle.history.is_some() {
            check_not_snapshot(E::MODEL, value)?;
        }
    }
    Ok(())
}

/// Refuses a history entity's sort key that ends as a snapshot's does (its
/// separator and ten digits): the item and the snapshot of another item's
/// version would share one key, and a write of either would replace the
/// other.
fn check_not_snapshot(model: &EntityModel, sk: &str) -> Result<(), ValidationError> {
    let (Some(history), Some(key)) = (&model.lifecycle.history, model.primary.sk) else {
        return Ok(());
    };
    if !history.is_snapshot_sk(sk) {
        return Ok(());
    }
    Err(ValidationError::SnapshotKey {
        entity: model.name,
        attribute: key.attribute,
        value: sk.to_owned(),
        separator: history.separator,
    })
}

/// Checks a table name: 3 to 255 characters of `A-Z a-z 0-9 _ . -`.
pub fn check_table_name(name: &str) -> Result<(), ValidationError> {
    let invalid = |reason| ValidationError::InvalidTableName {
        name: name.to_owned(),
        reason,
    };
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    if !name.chars().all(allowed) {
        return Err(invalid("holds a character other than A-Z a-z 0-9 _ . -"));
    }
    // Every allowed character is one byte.
    if !(MIN_TABLE_NAME_LENGTH..=MAX_TABLE_NAME_LENGTH).contains(&name.len()) {
        return Err(invalid("is not 3 to 255 characters long"));
    }
    Ok(())
}

/// Checks an idempotency (client request) token: 1 to 36 characters.
pub fn check_idempotency_token(token: &str) -> Result<(), ValidationError> {
    let length = token.chars().count();
    if length == 0 || length > MAX_IDEMPOTENCY_TOKEN_LENGTH {
        return Err(ValidationError::InvalidIdempotencyToken {
            length,
            limit: MAX_IDEMPOTENCY_TOKEN_LENGTH,
        });
    }
    Ok(())
}

/// A count for the wire (`Limit`, `Segment`, `TotalSegments`): checked
/// against `1..=max`, never wrapped.
pub fn wire_count(what: &'static str, value: u32, max: u32) -> Result<i32, ValidationError> {
    let out_of_range = || ValidationError::OutOfRange {
        what,
        value: value.into(),
        max: max.into(),
    };
    if value == 0 || value > max {
        return Err(out_of_range());
    }
    i32::try_from(value).map_err(|_| out_of_range())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked() {
        assert!(check_key("pk", "", true).is_err());
        assert!(check_key("pk", &"x".repeat(2048), true).is_ok());
        assert!(check_key("pk", &"x".repeat(2049), true).is_err());
        assert!(check_key("sk", &"x".repeat(1025), false).is_err());
    }

    #[test]
    fn table_names_tokens_and_counts_are_checked() {
        assert!(check_table_name("app").is_ok());
        assert!(check_table_name(&"a".repeat(255)).is_ok());
        for bad in ["ab", "", "has space", "tab/le", "é-table"] {
            assert!(check_table_name(bad).is_err(), "{bad}");
        }
        assert!(check_table_name(&"a".repeat(256)).is_err());
        assert!(check_idempotency_token(&"t".repeat(36)).is_ok());
        assert!(check_idempotency_token(&"t".repeat(37)).is_err());
        assert!(check_idempotency_token("").is_err());
        assert_eq!(wire_count("limit", 7, MAX_LIMIT), Ok(7));
        // `u32 as i32` wrapped this to a negative Limit.
        assert!(wire_count("limit", u32::MAX, MAX_LIMIT).is_err());
        assert!(wire_count("limit", 0, MAX_LIMIT).is_err());
        assert!(wire_count("segments", 1_000_001, MAX_SCAN_SEGMENTS).is_err());
    }
}
