//! The size DynamoDB gives an item, by its documented rules: the one
//! calculator behind `Entity::item_size`, the client's 400 KB check and its
//! statistics.
//!
//! The rules (DynamoDB developer guide, "DynamoDB item sizes and formats"):
//! an item is the sum of its attributes, each the UTF-8 length of its name
//! plus its value's size, where
//!
//! - a string (`S`) is its UTF-8 length;
//! - a number (`N`) is 1 byte, plus 1 per two significant digits (leading
//!   and trailing zeros trimmed; integer and fraction digits rounded up
//!   separately), plus 1 when negative;
//! - a binary (`B`) is its raw length (not its base64 text);
//! - a boolean or null is 1 byte;
//! - a list or map is 3 bytes, plus 1 per element, plus its elements (a
//!   map's element also counts its key's length);
//! - a set is the sum of its members.
//!
//! ```
//! use entity_core::size::item_size;
//! use entity_core::Item;
//! use aws_sdk_dynamodb::types::AttributeValue;
//!
//! let mut item = Item::new();
//! item.insert("id".into(), AttributeValue::S("abc1231".into())); // 2 + 7
//! item.insert("expiresAt".into(), AttributeValue::N("2099".into())); // 9 + 3
//! let size = item_size(&item);
//! assert_eq!(size.total, 21);
//! assert_eq!(size.of("expiresAt"), Some(12));
//! ```

use crate::Item;
use aws_sdk_dynamodb::types::AttributeValue;

/// The longest partition key value DynamoDB stores, in UTF-8 bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// The longest sort key value DynamoDB stores, in UTF-8 bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// An item's size: the total and each attribute's share (its name's length
/// plus its value's size), largest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemSize {
    /// The item's size in bytes, as DynamoDB counts it against the 400 KB
    /// limit.
    pub total: usize,
    /// Each attribute's bytes, largest first (ties by name).
    pub attributes: Vec<(String, usize)>,
}

impl ItemSize {
    /// One attribute's bytes, if the item has it.
    pub fn of(&self, attribute: &str) -> Option<usize> {
        self.attributes
            .iter()
            .find(|(name, _)| name == attribute)
            .map(|&(_, size)| size)
    }
}

/// The size of an item, with each attribute's share.
pub fn item_size(item: &Item) -> ItemSize {
    let mut attributes: Vec<(String, usize)> = item
        .iter()
        .map(|(name, value)| (name.clone(), attribute_size(name, value)))
        .collect();
    attributes.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total = attributes.iter().map(|(_, size)| size).sum();
    ItemSize { total, attributes }
}

/// The size of an item, total only (no breakdown allocated).
pub fn item_total(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| attribute_size(name, value))
        .sum()
}

/// One attribute's size: its name's length plus its value's.
pub fn attribute_size(name: &str, value: &AttributeValue) -> usize {
    name.len() + value_size(value)
}

/// The size DynamoDB charges for a value.
pub fn value_size(value: &AttributeValue) -> usize {
    sized(value, number_size)
}

/// At least a value's size, without reading any number's digits: a string
/// or number, what nearly every attribute is, is bounded alike in one step
/// (its text's length, plus what a number may take beyond its digits). A
/// check that only needs to know an item is under a limit sums these, and
/// sizes exactly only an item whose bound is over it.
#[inline]
pub fn value_size_bound(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(text) | AttributeValue::N(text) => number_size_bound(text),
        other => sized(other, number_size_bound),
    }
}

/// A value's size, each number sized by `number`.
fn sized(value: &AttributeValue, number: fn(&str) -> usize) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(v) => 3 + v.iter().map(|e| 1 + sized(e, number)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| 1 + k.len() + sized(v, number))
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// At least a number's size, without reading its digits: it has at most
/// `len` significant digits, two to a byte, plus a byte, a byte for a
/// sign, and a byte for each of the integer and fraction parts rounding
/// up (`number_size` is at most `len / 2 + 3`).
#[inline]
fn number_size_bound(text: &str) -> usize {
    text.len() + 3
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
    // Counted without collecting: sizes are computed for every number of
    // every item written.
    let digits = || {
        integer
            .bytes()
            .chain(fraction.bytes())
            .filter(u8::is_ascii_digit)
    };
    let total = digits().count();
    let leading = digits().take_while(|&d| d == b'0').count();
    let trailing = if leading == total {
        0
    } else {
        digits().rev().take_while(|&d| d == b'0').count()
    };
    let significant = total.saturating_sub(leading).saturating_sub(trailing);
    if significant == 0 {
        return 1; // zero
    }
    // Where the decimal point falls among the significant digits (counts of
    // a string's bytes always fit an i64).
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let integer_digits = count(integer.bytes().filter(u8::is_ascii_digit).count());
    let point = (integer_digits - count(leading)).saturating_add(exponent);
    let whole = usize::try_from(point.clamp(0, count(significant))).unwrap_or(0);
    whole.div_ceil(2) + (significant - whole).div_ceil(2) + 1 + usize::from(negative)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.into())
    }

    #[test]
    fn values_follow_the_documented_rules() {
        assert_eq!(value_size(&s("héllo")), 6, "UTF-8 bytes, not chars");
        assert_eq!(value_size(&n("12345")), 4);
        assert_eq!(value_size(&AttributeValue::B(Blob::new(vec![0; 10]))), 10);
        assert_eq!(value_size(&AttributeValue::Bool(true)), 1);
        assert_eq!(value_size(&AttributeValue::Null(true)), 1);
        // Lists and maps: 3 bytes, 1 per element, the elements (and keys).
        assert_eq!(value_size(&AttributeValue::L(vec![])), 3);
        assert_eq!(
            value_size(&AttributeValue::L(vec![AttributeValue::Bool(true)])),
            5
        );
        let map = AttributeValue::M([("ab".to_owned(), s("xyz"))].into());
        assert_eq!(value_size(&map), 3 + 1 + 2 + 3);
        assert_eq!(
            value_size(&AttributeValue::Ss(vec!["a".into(), "bc".into()])),
            3
        );
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
            let value = n(number);
            assert!(value_size_bound(&value) >= value_size(&value), "{number}");
        }
    }

    /// The item of a public calculator's example (ddbitemsizer's README):
    /// 141 bytes.
    #[test]
    fn a_documented_item_is_141_bytes() {
        let item: Item = [
            ("itemType", s("SLOT")),
            ("id", s("abc1231")),
            ("hostName", s("Harry Mason")),
            ("timeSlot", s("February 23, 1999")),
            ("slotStatus", s("OPEN")),
            ("createdAt", s("February 1, 1999")),
            ("updatedAt", s("February 1, 1999")),
            ("expiresAt", n("2099")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let size = item_size(&item);
        assert_eq!(size.total, 141);
        assert_eq!(item_total(&item), 141);
        assert_eq!(size.of("timeSlot"), Some(25));
        assert_eq!(size.of("expiresAt"), Some(12));
        assert_eq!(size.attributes[0].1, 25, "largest first");
        assert_eq!(size.of("missing"), None);
    }
}
