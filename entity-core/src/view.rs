//! Index views: what a query of an index that projects less than whole
//! items returns (`#[index(.., projection = keys_only | include(..))]`).
//!
//! The derive generates one view type per such index, `TaskByOwnerView`
//! for `Task::by_owner`, holding exactly the fields the index holds: the
//! composites of the table key and of the index's keys (read back from the
//! key text), and the fields `include(..)` names. A field the index does
//! not hold is not on the view, so reading it is a compile error. The
//! view's [`IndexView::primary_key`] is the table key of the item it was
//! read from; the client's `hydrate` reads the whole entities by it.

use crate::__private::AttributeValue;
use crate::attr::AttributeError;
use crate::entity::{Entity, PrimaryKey, Readable};
use crate::error::DecodeError;
use crate::key::KeyResult;
use crate::Item;

/// The item type of a query of a projected index: the fields the index
/// holds, and the table key of the whole item.
///
/// ```
/// use entity_core::{Entity, IndexView};
///
/// #[derive(Entity)]
/// #[entity(schema = "app")]
/// #[pk(task_id)]
/// #[index(by_owner(gsi = "gsi1", pk(owner), projection = include(title)))]
/// struct Task { task_id: String, owner: String, title: String, notes: String }
///
/// // What `Task::by_owner(..)` queries return: no `notes` on it.
/// fn show(view: &TaskByOwnerView) -> String {
///     format!("{} {} {}", view.task_id, view.owner, view.title)
/// }
/// # fn key(view: &TaskByOwnerView) -> entity_core::PrimaryKey<Task> {
/// view.primary_key() // what `client.hydrate(..)` reads the whole Task by
/// # }
/// ```
pub trait IndexView: Readable {
    /// The entity the index belongs to.
    type Entity: Entity;

    /// The table key of the item this view was read from.
    fn primary_key(&self) -> PrimaryKey<Self::Entity>;
}

/// The text of key attribute `attribute` (`S`, or `N` for a number key).
#[doc(hidden)]
pub fn view_key_text<'a>(
    item: &'a Item,
    entity: &'static str,
    attribute: &'static str,
    foreign: bool,
) -> Result<&'a str, DecodeError> {
    match item.get(attribute) {
        Some(AttributeValue::S(text) | AttributeValue::N(text)) => Ok(text),
        None => Err(unread(foreign, entity, attribute, AttributeError::Missing)),
        Some(value) => {
            let found = crate::attr::type_name(value);
            let wrong = AttributeError::WrongType {
                expected: "S",
                found,
            };
            Err(unread(foreign, entity, attribute, wrong))
        }
    }
}

/// The table key of an index item of `E` (DynamoDB projects it into every
/// index). `foreign`: the index holds no identity attribute, so an item
/// whose key is not `E`'s belongs to another entity.
#[doc(hidden)]
pub fn view_key<E: Entity>(item: &Item, foreign: bool) -> Result<PrimaryKey<E>, DecodeError> {
    let primary = &E::MODEL.primary;
    let pk = view_key_text(item, E::MODEL.name, primary.pk.attribute, foreign)?;
    let sk = match primary.sk {
        Some(sk) => Some((
            sk.attribute,
            view_key_text(item, E::MODEL.name, sk.attribute, foreign)?.to_owned(),
        )),
        None => None,
    };
    Ok(PrimaryKey::new(primary.pk.attribute, pk.to_owned(), sk))
}

/// A key's composites, parsed back: a key that does not parse is another
/// entity's in an index without identity attribute (`foreign`), else a
/// decode error.
#[doc(hidden)]
pub fn view_parsed<T>(
    parsed: KeyResult<T>,
    entity: &'static str,
    attribute: &'static str,
    foreign: bool,
) -> Result<T, DecodeError> {
    parsed.map_err(|error| {
        let invalid = AttributeError::Invalid(error.to_string());
        unread(foreign, entity, attribute, invalid)
    })
}

/// A key attribute that does not read: in an index without identity
/// attribute (`foreign`) the item is another entity's, else `why` is a
/// decode error.
fn unread(
    foreign: bool,
    entity: &'static str,
    attribute: &'static str,
    why: AttributeError,
) -> DecodeError {
    match foreign {
        true => DecodeError::WrongEntity {
            expected: entity,
            attribute,
            found: None,
        },
        false => DecodeError::Attribute {
            entity,
            attribute,
            source: why,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn key_text_reads_strings_and_numbers_and_names_what_is_wrong() {
        let it = item(&[
            ("pk", AttributeValue::S("a".into())),
            ("n", AttributeValue::N("7".into())),
            ("b", AttributeValue::Bool(true)),
        ]);
        assert_eq!(view_key_text(&it, "Task", "pk", false).unwrap(), "a");
        assert_eq!(view_key_text(&it, "Task", "n", false).unwrap(), "7");
        let missing = view_key_text(&it, "Task", "sk", false).unwrap_err();
        assert!(matches!(
            missing,
            DecodeError::Attribute {
                source: AttributeError::Missing,
                attribute: "sk",
                ..
            }
        ));
        let wrong = view_key_text(&it, "Task", "b", false).unwrap_err();
        assert!(matches!(
            wrong,
            DecodeError::Attribute {
                source: AttributeError::WrongType { found: "BOOL", .. },
                ..
            }
        ));
        // Without an identity attribute, a missing key is another entity's.
        assert!(view_key_text(&it, "Task", "sk", true)
            .unwrap_err()
            .is_foreign());
    }

    #[test]
    fn a_key_that_does_not_parse_is_foreign_only_without_identity() {
        let bad: KeyResult<(u8,)> = Err(crate::KeyError {
            entity: "Task",
            which: "pk",
            key: "$note#n1".into(),
            reason: "expected `$task#`".into(),
        });
        let err = view_parsed(bad.clone(), "Task", "pk", true).unwrap_err();
        assert!(err.is_foreign());
        let err = view_parsed(bad, "Task", "pk", false).unwrap_err();
        assert!(matches!(
            err,
            DecodeError::Attribute {
                source: AttributeError::Invalid(_),
                ..
            }
        ));
    }
}
