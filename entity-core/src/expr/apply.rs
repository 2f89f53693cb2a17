//! An update applied to an item in memory, as DynamoDB would apply it: how
//! the client knows the item an update leaves (a history snapshot of it is
//! written in the same transaction as the update).

use super::update::{SetAction, Update};
use crate::attr::AttributeError;
use crate::Item;
use aws_sdk_dynamodb::types::AttributeValue;

impl<E> Update<E> {
    /// Applies the update to `item` as DynamoDB would. Arithmetic is exact
    /// on integers (up to 38 digits); a fractional operand is refused with
    /// an error rather than rounded.
    pub fn apply_to(&self, item: &mut Item) -> Result<(), AttributeError> {
        // Every operand reads the item as it was before the update.
        let before = self
            .sets_in_order()
            .any(|(_, action)| matches!(action, SetAction::CopyOr(..)))
            .then(|| item.clone());
        for (name, action) in self.sets_in_order() {
            let current = item.get(name).cloned();
            let value = match action {
                SetAction::Value(v) => v.clone()?,
                SetAction::IfNotExists(v) => match current {
                    Some(existing) => existing,
                    None => v.clone()?,
                },
                SetAction::CopyOr(source, v) => {
                    let before = before.as_ref().unwrap_or(item);
                    before.get(*source).cloned().unwrap_or_else(|| v.clone())
                }
                SetAction::Add(n, zero) => arithmetic(current, zero, &n.clone()?, 1)?,
                SetAction::Subtract(n, zero) => arithmetic(current, zero, &n.clone()?, -1)?,
                SetAction::Append(v) => concat(list(current)?, list(Some(v.clone()?))?),
                SetAction::Prepend(v) => concat(list(Some(v.clone()?))?, list(current)?),
            };
            item.insert(name.to_owned(), value);
        }
        for name in self.removed() {
            item.remove(*name);
        }
        for (name, members) in self.set_additions() {
            let merged = merge_set(item.get(*name), &members.clone()?, true)?;
            item.insert((*name).to_owned(), merged);
        }
        for (name, members) in self.set_deletions() {
            if let Some(current) = item.get(*name) {
                match merge_set(Some(current), &members.clone()?, false)? {
                    // DynamoDB removes a set left empty.
                    AttributeValue::Ss(v) if v.is_empty() => item.remove(*name),
                    AttributeValue::Ns(v) if v.is_empty() => item.remove(*name),
                    AttributeValue::Bs(v) if v.is_empty() => item.remove(*name),
                    remaining => item.insert((*name).to_owned(), remaining),
                };
            }
        }
        Ok(())
    }
}

/// `if_not_exists(current, zero) + sign * n`, on integers.
fn arithmetic(
    current: Option<AttributeValue>,
    zero: &AttributeValue,
    n: &AttributeValue,
    sign: i128,
) -> Result<AttributeValue, AttributeError> {
    let base = integer(current.as_ref().unwrap_or(zero))?;
    let delta = integer(n)?;
    let result = delta
        .checked_mul(sign)
        .and_then(|d| base.checked_add(d))
        .ok_or_else(|| AttributeError::Invalid("the result is out of range".into()))?;
    Ok(AttributeValue::N(result.to_string()))
}

fn integer(value: &AttributeValue) -> Result<i128, AttributeError> {
    match value {
        AttributeValue::N(text) => text.parse().map_err(|_| {
            AttributeError::Invalid(format!(
                "{text} is not an integer: a history snapshot needs exact arithmetic"
            ))
        }),
        other => Err(wrong_type("N", other)),
    }
}

fn wrong_type(expected: &'static str, found: &AttributeValue) -> AttributeError {
    AttributeError::WrongType {
        expected,
        found: crate::attr::type_name(found),
    }
}

fn list(value: Option<AttributeValue>) -> Result<Vec<AttributeValue>, AttributeError> {
    match value {
        None => Ok(Vec::new()),
        Some(AttributeValue::L(items)) => Ok(items),
        Some(other) => Err(wrong_type("L", &other)),
    }
}

fn concat(mut a: Vec<AttributeValue>, b: Vec<AttributeValue>) -> AttributeValue {
    a.extend(b);
    AttributeValue::L(a)
}

/// A set with `members` added (or removed).
fn merge_set(
    current: Option<&AttributeValue>,
    members: &AttributeValue,
    add: bool,
) -> Result<AttributeValue, AttributeError> {
    fn merge<T: PartialEq + Clone>(current: Option<&Vec<T>>, members: &[T], add: bool) -> Vec<T> {
        let mut out: Vec<T> = current.cloned().unwrap_or_default();
        for member in members {
            let at = out.iter().position(|m| m == member);
            match (add, at) {
                (true, None) => out.push(member.clone()),
                (false, Some(i)) => {
                    out.remove(i);
                }
                _ => {}
            }
        }
        out
    }
    let wrong = || AttributeError::Invalid("not a set of the members' type".into());
    Ok(match members {
        AttributeValue::Ss(m) => AttributeValue::Ss(merge(
            current
                .map(|c| c.as_ss().map_err(|_| wrong()))
                .transpose()?,
            m,
            add,
        )),
        AttributeValue::Ns(m) => AttributeValue::Ns(merge(
            current
                .map(|c| c.as_ns().map_err(|_| wrong()))
                .transpose()?,
            m,
            add,
        )),
        AttributeValue::Bs(m) => AttributeValue::Bs(merge(
            current
                .map(|c| c.as_bs().map_err(|_| wrong()))
                .transpose()?,
            m,
            add,
        )),
        other => return Err(wrong_type("SS, NS or BS", other)),
    })
}
