//! Whether two entities given for one table would mix their items.
//!
//! The derive sees one entity at a time; `create_table` and the design
//! export see every entity of a table and refuse two that would mix:
//!
//! * **One name.** Every read keeps the items whose identity attribute
//!   holds the entity's name, so two entities stored under one name read
//!   each other's items as their own (a scan of one decodes the other's).
//!   Two versions of one entity (`upgrade_from`) share a name by design:
//!   the version attribute tells their items apart.
//! * **One key.** Two entities whose table keys have the same literal text
//!   with values in the same places compose the same key from the same
//!   values (`A#{id}` and `A#{order_id}`), so a write of one overwrites the
//!   other's item. Entities that share a partition by design (collection
//!   members, items of one user) differ in their sort key's literal text,
//!   and are not refused; nor are keys that differ in any literal, even
//!   where a value could spell the other's literal (an order id `PROFILE`
//!   beside a `PROFILE` sort key): that is a choice of the values, not of
//!   the design.

use crate::model::{EntityModel, KeyModel};

/// How two entities given for one table would mix their items
/// ([`EntityModel::overlap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Overlap {
    /// Both are stored under one entity name (in one identity attribute):
    /// each reads the other's items as its own.
    SameName,
    /// Both compose the same table key from the same values: a write of
    /// one overwrites the other's item.
    SameKey,
}

impl Overlap {
    /// What goes wrong, and the way out.
    pub fn explain(self) -> &'static str {
        match self {
            Overlap::SameName => "both are stored under one entity name, so each would read the other's items as its own; give one another name with `#[entity(name = \"...\")]`",
            Overlap::SameKey => "they compose the same table key from the same values, so a write of one would overwrite the other's item; give one a literal text of its own in its key format, such as a prefix naming it",
        }
    }
}

impl EntityModel {
    /// How `self` and `other`, in one table, would mix their items; `None`
    /// when they would not (or they are the same entity, or two versions of
    /// one).
    ///
    /// ```
    /// use entity_core::{Entity, Overlap};
    ///
    /// #[derive(Entity)]
    /// #[pk(format = "ORDER#{id}")]
    /// #[sk(format = "ORDER")]
    /// struct Order { id: String }
    ///
    /// #[derive(Entity)]
    /// #[pk(format = "ORDER#{order_id}")]
    /// #[sk(format = "ORDER")]
    /// struct Invoice { order_id: String }
    ///
    /// #[derive(Entity)]
    /// #[pk(format = "ORDER#{order_id}")]
    /// #[sk(format = "INVOICE")]
    /// struct OrderInvoice { order_id: String }
    ///
    /// assert_eq!(Order::MODEL.overlap(Invoice::MODEL), Some(Overlap::SameKey));
    /// assert_eq!(Order::MODEL.overlap(OrderInvoice::MODEL), None);
    /// ```
    pub fn overlap(&self, other: &EntityModel) -> Option<Overlap> {
        if self == other {
            return None;
        }
        let one_name =
            self.name == other.name && self.identity_attribute == other.identity_attribute;
        if one_name {
            // Versions of one entity share its name and keys.
            return (self.version == other.version).then_some(Overlap::SameName);
        }
        let (ours, theirs) = (&self.primary, &other.primary);
        let same_sk = match (&ours.sk, &theirs.sk) {
            (Some(a), Some(b)) => a.spells_like(b),
            (None, None) => true,
            _ => false,
        };
        (ours.pk.spells_like(&theirs.pk) && same_sk).then_some(Overlap::SameKey)
    }
}

impl KeyModel {
    /// Whether this key and `other` are one attribute of one type with the
    /// same literal text and values in the same places, so that the same
    /// values compose the same key.
    fn spells_like(&self, other: &KeyModel) -> bool {
        self.attribute == other.attribute
            && self.number == other.number
            && self.shards == other.shards
            && template_shape(self.template) == template_shape(other.template)
    }
}

/// A template's literal text, with each `{value}` as one `{}`.
fn template_shape(template: &str) -> String {
    let mut shape = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        shape.push_str(&rest[..open]);
        shape.push_str("{}");
        rest = &rest[open + close + 1..];
    }
    shape.push_str(rest);
    shape
}

#[cfg(test)]
mod tests {
    use super::template_shape;

    #[test]
    fn a_shape_keeps_the_literal_text_and_marks_the_values() {
        assert_eq!(
            template_shape("$app#v1#task#task_id_{task_id}"),
            "$app#v1#task#task_id_{}"
        );
        assert_eq!(
            template_shape("KIND#{r#type}#{at:month}@{n}"),
            "KIND#{}#{}@{}"
        );
        assert_eq!(template_shape("PROFILE"), "PROFILE");
    }
}
