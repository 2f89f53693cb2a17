//! The item an entity writes, through [`Entity::write_item`]: attribute by
//! attribute, with what a client checks before sending it noted on the
//! way, so that a write need not read the item again.
//!
//! [`Entity::write_item`]: crate::Entity::write_item

use crate::model::EntityModel;
use crate::size::value_size_bound;
use crate::Item;
use aws_sdk_dynamodb::types::AttributeValue;

/// The shortest limit DynamoDB puts on a string key value (a sort key's):
/// a composed key as long or shorter, and not empty, is within every key
/// limit.
const SHORTEST_KEY_LIMIT: usize = crate::size::MAX_SORT_KEY_BYTES;

/// An item being written by [`Entity::write_item`](crate::Entity::write_item).
///
/// [`Entity::to_item`](crate::Entity::to_item) hands one to `write_item`
/// and returns its [`finish`](Self::finish)ed item. `#[derive(Entity)]`
/// writes `write_item`; a hand-written one puts each attribute:
///
/// ```
/// use entity_core::{Entity, ItemWriter};
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// #[derive(Entity)]
/// #[entity(schema = "app")]
/// #[pk(id)]
/// struct Doc { id: String }
///
/// let mut writer = ItemWriter::new(Doc::MODEL);
/// writer.put("note", AttributeValue::S("kept".into()));
/// Doc { id: "d-1".into() }.write_item(&mut writer)?;
/// let item = writer.finish();
/// assert_eq!(item["note"], AttributeValue::S("kept".into()));
/// assert_eq!(item["pk"], AttributeValue::S("$app#v1#doc#id_d-1".into()));
/// # Ok::<(), entity_core::EncodeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ItemWriter {
    item: Item,
    model: &'static EntityModel,
    /// At least the item's size ([`value_size_bound`] of each attribute,
    /// plus its name), when checking.
    bound: usize,
    /// Whether the writer checks as it writes: notes the bound and the
    /// suspect keys, and holds the table key's values out of the item until
    /// [`finish`](Self::finish), for a client to read without a lookup. A
    /// writer that only converts ([`new`](Self::new)) does none of it.
    check: bool,
    pk: Option<AttributeValue>,
    sk: Option<AttributeValue>,
    /// The composed string keys that may break a key limit (empty, or
    /// longer than the shortest limit): attribute and length, when
    /// checking.
    suspect: Vec<(&'static str, usize)>,
}

impl ItemWriter {
    /// A writer of an item of the entity `model` describes.
    pub fn new(model: &'static EntityModel) -> Self {
        Self::with(model, false)
    }

    /// A writer that checks as it writes: it holds the table key's values
    /// out of the item until it is finished ([`table_key`](Self::table_key)),
    /// and notes a bound on the item's size
    /// ([`size_bound`](Self::size_bound)) and the keys a limit may refuse
    /// ([`suspect_keys`](Self::suspect_keys)).
    #[doc(hidden)]
    pub fn holding_table_key(model: &'static EntityModel) -> Self {
        Self::with(model, true)
    }

    fn with(model: &'static EntityModel, check: bool) -> Self {
        // Every field, two keys per index and the identity and version.
        let capacity = model.fields.len() + 2 * (1 + model.indexes.len()) + 2;
        Self {
            item: Item::with_capacity(capacity),
            model,
            bound: 0,
            check,
            pk: None,
            sk: None,
            suspect: Vec::new(),
        }
    }

    /// Writes `value` as attribute `attribute` (over one written before).
    pub fn put(&mut self, attribute: &str, value: AttributeValue) {
        if self.check {
            self.bound += attribute.len() + value_size_bound(&value);
        }
        self.item.insert(attribute.to_owned(), value);
    }

    /// Writes every attribute of `item`.
    pub fn extend(&mut self, item: Item) {
        for (attribute, value) in item {
            if self.check {
                self.bound += attribute.len() + value_size_bound(&value);
            }
            self.item.insert(attribute, value);
        }
    }

    /// Writes a composed key; a checking writer notes a string key a key
    /// limit may refuse, and holds the table key.
    pub(crate) fn put_key(&mut self, attribute: &'static str, value: AttributeValue) {
        if self.check {
            if let AttributeValue::S(text) = &value {
                if text.is_empty() || text.len() > SHORTEST_KEY_LIMIT {
                    self.suspect.push((attribute, text.len()));
                }
            }
            let primary = &self.model.primary;
            let slot = if attribute == primary.pk.attribute {
                Some(&mut self.pk)
            } else if primary.sk.is_some_and(|sk| sk.attribute == attribute) {
                Some(&mut self.sk)
            } else {
                None
            };
            if let Some(slot) = slot {
                self.bound += attribute.len() + value_size_bound(&value);
                *slot = Some(value);
                return;
            }
        }
        self.put(attribute, value);
    }

    /// The item written.
    pub fn finish(mut self) -> Item {
        let primary = &self.model.primary;
        if let Some(pk) = self.pk.take() {
            self.item.insert(primary.pk.attribute.to_owned(), pk);
        }
        if let (Some(key), Some(sk)) = (primary.sk, self.sk.take()) {
            self.item.insert(key.attribute.to_owned(), sk);
        }
        self.item
    }

    /// For a checking writer, at least the finished item's size, as
    /// [`size::value_size_bound`](crate::size::value_size_bound) bounds
    /// each attribute: only an item over a limit by this bound needs sizing
    /// exactly. 0 for one that only converts.
    #[doc(hidden)]
    pub fn size_bound(&self) -> usize {
        self.bound
    }

    /// The table key's values, when held ([`holding_table_key`]) and
    /// written as composed keys: the partition key's and the sort key's.
    ///
    /// [`holding_table_key`]: Self::holding_table_key
    #[doc(hidden)]
    pub fn table_key(&self) -> (Option<&AttributeValue>, Option<&AttributeValue>) {
        (self.pk.as_ref(), self.sk.as_ref())
    }

    /// For a checking writer, the composed string keys a key limit may
    /// refuse, by attribute and length in bytes: those empty, or longer
    /// than 1024 bytes (the sort key limit). Every other composed string key
    /// is within every limit.
    #[doc(hidden)]
    pub fn suspect_keys(&self) -> &[(&'static str, usize)] {
        &self.suspect
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{IndexModel, KeyModel};

    static MODEL: EntityModel = EntityModel {
        name: "Doc",
        primary: IndexModel::table(
            KeyModel::text("pk", &[], ""),
            Some(KeyModel::text("sk", &[], "")),
        ),
        ..crate::__private::MODEL_DEFAULTS
    };

    fn text(value: &str) -> AttributeValue {
        AttributeValue::S(value.into())
    }

    #[test]
    fn a_held_table_key_is_read_before_the_item_is_finished() {
        let mut writer = ItemWriter::holding_table_key(&MODEL);
        writer.put("note", text("n"));
        writer.put_key("pk", text("p"));
        writer.put_key("sk", text("s"));
        writer.put_key("gsi1pk", text("g"));
        assert_eq!(writer.table_key(), (Some(&text("p")), Some(&text("s"))));
        let bound = writer.size_bound();
        let item = writer.finish();
        assert_eq!(item.len(), 4);
        assert_eq!((&item["pk"], &item["sk"]), (&text("p"), &text("s")));
        // The bound covers every attribute, the held ones included.
        assert!(bound >= crate::size::item_size(&item).total);
    }

    #[test]
    fn a_writer_that_holds_nothing_writes_keys_into_the_item() {
        let mut writer = ItemWriter::new(&MODEL);
        writer.put_key("pk", text("p"));
        assert_eq!(writer.table_key(), (None, None));
        assert_eq!(writer.finish()["pk"], text("p"));
    }

    #[test]
    fn only_keys_a_limit_may_refuse_are_noted() {
        let mut writer = ItemWriter::holding_table_key(&MODEL);
        writer.put_key("pk", text(""));
        writer.put_key("sk", text(&"s".repeat(1024)));
        writer.put_key("gsi1pk", text(&"g".repeat(1025)));
        writer.put_key("gsi1sk", AttributeValue::N(String::new()));
        writer.put("field", text(""));
        assert_eq!(writer.suspect_keys(), &[("pk", 0), ("gsi1pk", 1025)]);
        // A writer that only converts notes nothing.
        let mut writer = ItemWriter::new(&MODEL);
        writer.put_key("pk", text(""));
        assert!(writer.suspect_keys().is_empty());
        assert_eq!(writer.size_bound(), 0);
    }
}
