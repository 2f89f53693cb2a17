//! DynamoDB's limits, checked before sending so a bad request fails with a
//! clear error instead of a round trip.

use crate::error::ValidationError;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{EntityModel, Item};

/// The largest item DynamoDB stores: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;
/// The longest partition key value, in UTF-8 bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// The longest sort key value, in UTF-8 bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;
/// The most items in one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;
/// The most keys in one BatchGetItem.
pub const BATCH_GET_CHUNK: usize = 100;
/// The most requests in one BatchWriteItem.
pub const BATCH_WRITE_CHUNK: usize = 25;

/// The size DynamoDB charges for a value (its documented rules, rounded up
/// for numbers).
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(v) => 3 + v.iter().map(|e| 1 + value_size(e)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| 1 + k.len() + value_size(v))
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// A number's size: one byte, plus one per two significant digits of its
/// integer part and one per two of its fraction, counted separately, with
/// leading and trailing zeros trimmed; one byte more when it is negative
/// (`1.5` is 3 bytes, `-42` is 3, `100` is 2).
fn number_size(text: &str) -> usize {
    let text = text.trim();
    let negative = text.starts_with('-');
    let unsigned = text.trim_start_matches(['-', '+']);
    let (coefficient, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (
            &unsigned[..at],
            unsigned[at + 1..].parse::<i64>().unwrap_or(0),
        ),
        None => (unsigned, 0),
    };
    let (integer, fraction) = coefficient.split_once('.').unwrap_or((coefficient, ""));
    let digits: Vec<u8> = integer
        .bytes()
        .chain(fraction.bytes())
        .filter(u8::is_ascii_digit)
        .collect();
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    let trailing = digits[leading..]
        .iter()
        .rev()
        .take_while(|&&d| d == b'0')
        .count();
    let significant = digits.len() - leading - trailing;
    if significant == 0 {
        return 1; // zero
    }
    // Where the decimal point falls among the significant digits.
    let integer_digits = integer.bytes().filter(u8::is_ascii_digit).count() as i64;
    let point = (integer_digits - leading as i64).saturating_add(exponent);
    let whole = point.clamp(0, significant as i64) as usize;
    whole.div_ceil(2) + (significant - whole).div_ceil(2) + 1 + usize::from(negative)
}

/// The size of an item: attribute names plus values.
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

/// Checks an item's size and every key attribute the entity writes.
pub fn check_item(model: &EntityModel, item: &Item) -> Result<(), ValidationError> {
    let size = item_size(item);
    if size > MAX_ITEM_BYTES {
        return Err(ValidationError::ItemTooLarge {
            entity: model.name,
            size,
            limit: MAX_ITEM_BYTES,
        });
    }
    for index in std::iter::once(&model.primary).chain(model.indexes) {
        let keys = std::iter::once((&index.pk, true)).chain(index.sk.iter().map(|sk| (sk, false)));
        for (key, partition) in keys {
            if let Some(AttributeValue::S(value)) = item.get(key.attribute) {
                check_key(key.attribute, value, partition)?;
            }
        }
    }
    Ok(())
}

/// Checks one key value: not empty, not over its length limit.
pub fn check_key(attribute: &str, value: &str, partition: bool) -> Result<(), ValidationError> {
    let (kind, limit) = if partition {
        ("partition", MAX_PARTITION_KEY_BYTES)
    } else {
        ("sort", MAX_SORT_KEY_BYTES)
    };
    if value.is_empty() {
        return Err(ValidationError::EmptyKey {
            attribute: attribute.to_owned(),
        });
    }
    if value.len() > limit {
        return Err(ValidationError::KeyTooLong {
            attribute: attribute.to_owned(),
            kind,
            length: value.len(),
            limit,
        });
    }
    Ok(())
}

/// Checks a table key.
pub fn check_primary_key<E>(key: &entity_core::PrimaryKey<E>) -> Result<(), ValidationError> {
    check_key(key.pk_attribute, &key.pk, true)?;
    if let Some((attribute, value)) = &key.sk {
        check_key(attribute, value, false)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_dynamodb_rules() {
        assert_eq!(value_size(&AttributeValue::S("héllo".into())), 6);
        assert_eq!(value_size(&AttributeValue::N("12345".into())), 4);
        // Integer and fraction digits round up separately; zeros at either
        // end are not stored; a sign costs a byte.
        for (number, size) in [
            ("0", 1),
            ("-0", 1),
            ("1.5", 3),
            ("-42", 3),
            ("100", 2),
            ("0.001", 2),
            ("0012.3400", 3),
            ("1e3", 2),
            ("1.25E-2", 3),
            ("123456789012345678901234567890123456.78", 20),
        ] {
            assert_eq!(number_size(number), size, "{number}");
        }
        assert_eq!(
            value_size(&AttributeValue::L(vec![AttributeValue::Bool(true)])),
            5
        );
    }

    #[test]
    fn keys_are_checked() {
        assert!(check_key("pk", "", true).is_err());
        assert!(check_key("pk", &"x".repeat(2048), true).is_ok());
        assert!(check_key("pk", &"x".repeat(2049), true).is_err());
        assert!(check_key("sk", &"x".repeat(1025), false).is_err());
    }
}
