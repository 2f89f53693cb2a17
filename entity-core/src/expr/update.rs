//! Update actions over an entity's fields.

use super::attr::{Attr, IntoAttr, Numeric, Settable};
use super::condition::Condition;
use super::placeholders::Placeholders;
use crate::attr::{AttributeError, SetMember, ToAttribute};
use aws_sdk_dynamodb::types::AttributeValue;
use std::marker::PhantomData;

pub(crate) type Value = Result<AttributeValue, AttributeError>;

#[derive(Debug, Clone)]
pub(crate) enum SetAction {
    Value(Value),
    IfNotExists(Value),
    /// `if_not_exists(source, value)`: another attribute's value as it was
    /// before the update, or `value`.
    CopyOr(&'static str, AttributeValue),
    Add(Value, AttributeValue),
    Subtract(Value, AttributeValue),
    Append(Value),
    Prepend(Value),
}

/// The changes of one update, typed by entity.
///
/// Table key composites have no setter (their handles are not
/// [`Settable`]); index key composites change through the entity's generated
/// group setter, which recomposes their index keys ([`IndexChange`]).
///
/// ```
/// use entity_core::{Entity, expr::{Placeholders, Update}};
///
/// #[derive(Entity)]
/// #[entity(schema = "app")]
/// #[pk(id)]
/// struct Doc { id: String, views: u32, title: Option<String>, tags: Vec<String> }
///
/// let f = Doc::fields();
/// let update = Update::<Doc>::new()
///     .set(f.title, "Hello")
///     .add(f.views, 1u32)
///     .append(f.tags, vec!["new".to_owned()]);
/// let mut placeholders = Placeholders::default();
/// assert_eq!(
///     update.render(&mut placeholders).unwrap(),
///     "SET #n0 = :v0, #n1 = if_not_exists(#n1, :v1) + :v2, #n2 = list_append(if_not_exists(#n2, :v3), :v4)"
/// );
/// ```
#[derive(Debug)]
pub struct Update<E> {
    sets: Vec<(String, SetAction)>,
    removes: Vec<&'static str>,
    adds: Vec<(&'static str, Value)>,
    deletes: Vec<(&'static str, Value)>,
    guards: Vec<Condition<E>>,
    /// What the guards of a group setter require: each composite's
    /// attribute and the value it must hold (`None`: absent), to name the
    /// ones that differ when the update is refused.
    fixed: Vec<(String, Option<AttributeValue>)>,
    /// Sharded index keys a group setter recomposed, waiting for the table
    /// key of the item updated, which picks their shard.
    shard_keys: Vec<ShardKey>,
    entity: PhantomData<fn() -> E>,
}

/// A recomposed sharded partition key: its attribute, its unsharded text,
/// and its sharding.
#[derive(Debug, Clone)]
pub(crate) struct ShardKey {
    attribute: String,
    base: String,
    spec: crate::key::ShardSpec,
}

impl<E> Clone for Update<E> {
    fn clone(&self) -> Self {
        Self {
            sets: self.sets.clone(),
            removes: self.removes.clone(),
            adds: self.adds.clone(),
            deletes: self.deletes.clone(),
            guards: self.guards.clone(),
            fixed: self.fixed.clone(),
            shard_keys: self.shard_keys.clone(),
            entity: PhantomData,
        }
    }
}

impl<E> Default for Update<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Update<E> {
    /// No changes yet.
    pub fn new() -> Self {
        Self {
            sets: Vec::new(),
            removes: Vec::new(),
            adds: Vec::new(),
            deletes: Vec::new(),
            guards: Vec::new(),
            fixed: Vec::new(),
            shard_keys: Vec::new(),
            entity: PhantomData,
        }
    }

    /// True when nothing would change.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
            && self.shard_keys.is_empty()
            && self.removes.is_empty()
            && self.adds.is_empty()
            && self.deletes.is_empty()
    }

    /// Whether applying the update twice leaves the item as applying it once:
    /// no arithmetic, no list append or prepend, and no copy of another
    /// attribute (which the update may change). (Adding members to a set or
    /// removing them is idempotent.)
    pub fn is_idempotent(&self) -> bool {
        self.sets
            .iter()
            .all(|(_, action)| matches!(action, SetAction::Value(_) | SetAction::IfNotExists(_)))
    }

    /// The attributes this update writes, in order.
    pub fn attributes(&self) -> impl Iterator<Item = &str> {
        self.sets
            .iter()
            .map(|(name, _)| name.as_str())
            .chain(self.shard_keys.iter().map(|key| key.attribute.as_str()))
            .chain(self.removes_not_set().map(|name| name as &str))
            .chain(self.adds.iter().map(|(name, _)| *name))
            .chain(self.deletes.iter().map(|(name, _)| *name))
    }

    /// `SET attr = value`; setting an optional field to `None` removes it
    /// (as `put` leaves it out), rather than storing `NULL`.
    pub fn set<T, M: Settable>(mut self, attr: Attr<E, T, M>, value: impl IntoAttr<T>) -> Self {
        self.leave_indexes::<M>();
        match value.into_attr() {
            Ok(AttributeValue::Null(_)) => self.removes.push(attr.name()),
            value => self.sets.push((
                attr.name().to_owned(),
                SetAction::Value(value.and_then(M::stored)),
            )),
        }
        self
    }

    /// `SET attr = value` for a field stored through serde
    /// (`#[entity(serde)]`); a value serde writes as null removes the
    /// attribute. (Feature `serde`.)
    #[cfg(feature = "serde")]
    pub fn set_serde<T: serde::Serialize, M: Settable>(
        mut self,
        attr: Attr<E, T, M>,
        value: &T,
    ) -> Self {
        self.leave_indexes::<M>();
        match crate::attr::to_serde_attribute(value) {
            Ok(None) => self.removes.push(attr.name()),
            Ok(Some(value)) => self
                .sets
                .push((attr.name().to_owned(), SetAction::Value(Ok(value)))),
            Err(e) => self
                .sets
                .push((attr.name().to_owned(), SetAction::Value(Err(e)))),
        }
        self
    }

    /// `SET attr = if_not_exists(attr, value)`: set only when absent.
    pub fn set_if_not_exists<T, M: Settable>(
        mut self,
        attr: Attr<E, T, M>,
        value: impl IntoAttr<T>,
    ) -> Self {
        self.leave_indexes::<M>();
        self.sets.push((
            attr.name().to_owned(),
            SetAction::IfNotExists(value.into_attr().and_then(M::stored)),
        ));
        self
    }

    /// `REMOVE attr` (optional fields only).
    pub fn remove<T, M: Settable>(mut self, attr: Attr<E, Option<T>, M>) -> Self {
        self.leave_indexes::<M>();
        self.removes.push(attr.name());
        self
    }

    /// `SET attr = if_not_exists(attr, 0) + n`.
    pub fn add<T: Numeric, M: Settable>(
        mut self,
        attr: Attr<E, T, M>,
        n: impl IntoAttr<T>,
    ) -> Self {
        self.leave_indexes::<M>();
        let n = n.into_attr();
        self.guard_range::<T>(attr.name(), &n, 1);
        self.sets
            .push((attr.name().to_owned(), SetAction::Add(n, T::zero())));
        self
    }

    /// `SET attr = if_not_exists(attr, 0) - n`.
    pub fn subtract<T: Numeric, M: Settable>(
        mut self,
        attr: Attr<E, T, M>,
        n: impl IntoAttr<T>,
    ) -> Self {
        self.leave_indexes::<M>();
        let n = n.into_attr();
        self.guard_range::<T>(attr.name(), &n, -1);
        self.sets
            .push((attr.name().to_owned(), SetAction::Subtract(n, T::zero())));
        self
    }

    /// Conditions `attr + sign * n` on staying inside `T`'s range: the
    /// stored value must lie in `[min - d, max - d]`, or be absent when
    /// `0 + d` itself fits. Out of range, the update fails with a
    /// condition failure instead of storing an unreadable number.
    fn guard_range<T: Numeric>(&mut self, name: &'static str, n: &Value, sign: i128) {
        let (Some((min, max)), Ok(AttributeValue::N(text))) = (T::BOUNDS, n) else {
            return;
        };
        let Some(delta) = text.parse::<i128>().ok().and_then(|n| n.checked_mul(sign)) else {
            return;
        };
        let low = min.saturating_sub(delta).max(min);
        let high = max.saturating_sub(delta).min(max);
        let number = |v: i128| AttributeValue::N(v.to_string());
        let in_range = Condition::attribute_between(name, number(low), number(high));
        let guard = if (min..=max).contains(&delta) {
            Condition::attribute_not_exists(name).or(in_range)
        } else {
            in_range
        };
        self.guards.push(guard);
    }

    /// Appends to a list: `SET attr = list_append(if_not_exists(attr, []), items)`.
    pub fn append<X: ToAttribute, M: Settable>(
        mut self,
        attr: Attr<E, Vec<X>, M>,
        items: Vec<X>,
    ) -> Self {
        self.leave_indexes::<M>();
        self.sets.push((
            attr.name().to_owned(),
            SetAction::Append(IntoAttr::<Vec<X>>::into_attr(items)),
        ));
        self
    }

    /// Prepends to a list: `SET attr = list_append(items, if_not_exists(attr, []))`.
    pub fn prepend<X: ToAttribute, M: Settable>(
        mut self,
        attr: Attr<E, Vec<X>, M>,
        items: Vec<X>,
    ) -> Self {
        self.leave_indexes::<M>();
        self.sets.push((
            attr.name().to_owned(),
            SetAction::Prepend(IntoAttr::<Vec<X>>::into_attr(items)),
        ));
        self
    }

    /// Adds members to a set: `ADD attr :members`.
    pub fn add_to_set<S, M: Settable>(mut self, attr: Attr<E, S, M>, members: S) -> Self
    where
        S: ToAttribute + IntoIterator,
        S::Item: SetMember,
    {
        self.leave_indexes::<M>();
        // No members: nothing to change (DynamoDB has no empty sets).
        match IntoAttr::<S>::into_attr(members) {
            Ok(AttributeValue::Null(_)) => {}
            value => self.adds.push((attr.name(), value)),
        }
        self
    }

    /// Removes members from a set: `DELETE attr :members`.
    pub fn delete_from_set<S, M: Settable>(mut self, attr: Attr<E, S, M>, members: S) -> Self
    where
        S: ToAttribute + IntoIterator,
        S::Item: SetMember,
    {
        self.leave_indexes::<M>();
        // No members: nothing to change (DynamoDB has no empty sets).
        match IntoAttr::<S>::into_attr(members) {
            Ok(AttributeValue::Null(_)) => {}
            value => self.deletes.push((attr.name(), value)),
        }
        self
    }

    /// Applies a group change of index key composites (from the entity's
    /// generated `set_<fields>` setter), with its recomposed index keys (or,
    /// for a sparse index whose optional composite is set to `None`, the
    /// removal of its keys and of that field).
    pub fn apply(mut self, change: IndexChange<E>) -> Self {
        for (name, value) in change.sets {
            self.sets.push((name, SetAction::Value(value)));
        }
        for name in change.removes {
            self.push_remove(name);
        }
        self.guards.extend(change.guards);
        self.fixed.extend(change.fixed);
        self.shard_keys.extend(change.shard_keys);
        self
    }

    /// Picks the shard of every sharded index key a group setter
    /// recomposed, from the table key of the item updated (`pk + "\0" +
    /// sk`, as the item's own composer does), and sets those keys.
    pub(crate) fn resolve_shard_keys(mut self, pk: &str, sk: &str) -> Self {
        for key in std::mem::take(&mut self.shard_keys) {
            let shard = key.spec.shard_of_item(pk, sk);
            let value = AttributeValue::S(key.spec.key(&key.base, shard));
            self.sets.push((key.attribute, SetAction::Value(Ok(value))));
        }
        self
    }

    /// A field of role `M` is being set: removes the keys of the sparse
    /// indexes it is a composite of (none for other roles). A key the same
    /// update recomposes (a group setter) is set instead, when rendered.
    fn leave_indexes<M: Settable>(&mut self) {
        for key in M::index_keys() {
            self.push_remove(key);
        }
    }

    fn push_remove(&mut self, attribute: &'static str) {
        if !self.removes.contains(&attribute) {
            self.removes.push(attribute);
        }
    }

    /// The attributes to `REMOVE`: those the update does not also set (a
    /// key a group setter recomposes wins over its removal by a sparse
    /// composite set alone).
    fn removes_not_set(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.removes
            .iter()
            .copied()
            .filter(|name| !self.sets.iter().any(|(set, _)| set == name))
    }

    /// The composites a group setter requires to be stored as given: each
    /// attribute and its value (`None`: absent). For naming the ones that
    /// differ when the update is refused.
    #[doc(hidden)]
    pub fn fixed_composites(&self) -> &[(String, Option<AttributeValue>)] {
        &self.fixed
    }

    /// Conditions the update needs to stay consistent (from group changes).
    pub fn guards(&self) -> Option<Condition<E>> {
        self.guards.iter().cloned().reduce(Condition::and)
    }

    /// `REMOVE attribute` for an attribute the framework maintains (the
    /// index keys a soft delete drops).
    pub(crate) fn remove_raw(mut self, attribute: &'static str) -> Self {
        if !self.removes.contains(&attribute) {
            self.removes.push(attribute);
        }
        self
    }

    /// `SET key = value` for a composed key or an attribute the framework
    /// maintains (generated code and the client).
    pub(crate) fn set_raw(mut self, attribute: &str, value: AttributeValue) -> Self {
        self.sets
            .push((attribute.to_owned(), SetAction::Value(Ok(value))));
        self
    }

    /// `SET attr = if_not_exists(attr, value)` for an attribute the
    /// framework maintains (the key fields of an item an update creates).
    pub(crate) fn set_raw_if_not_exists(mut self, attribute: &str, value: AttributeValue) -> Self {
        self.sets
            .push((attribute.to_owned(), SetAction::IfNotExists(Ok(value))));
        self
    }

    /// `SET attr = if_not_exists(source, value)` for an attribute the
    /// framework maintains: `source`'s value before the update, or
    /// `value` without one (the TTL a soft delete replaces, kept to
    /// restore).
    pub(crate) fn copy_raw_or(
        mut self,
        attribute: &str,
        source: &'static str,
        value: AttributeValue,
    ) -> Self {
        self.sets
            .push((attribute.to_owned(), SetAction::CopyOr(source, value)));
        self
    }

    /// `SET attr = if_not_exists(attr, 0) + n` for an attribute the
    /// framework maintains (the optimistic-lock version).
    pub(crate) fn add_raw(mut self, attribute: &str, n: AttributeValue) -> Self {
        let zero = AttributeValue::N("0".to_owned());
        self.sets
            .push((attribute.to_owned(), SetAction::Add(Ok(n), zero)));
        self
    }

    /// The `SET` actions, in order.
    pub(crate) fn sets_in_order(&self) -> impl Iterator<Item = (&str, &SetAction)> {
        self.sets
            .iter()
            .map(|(name, action)| (name.as_str(), action))
    }

    /// The `REMOVE`d attributes.
    pub(crate) fn removed(&self) -> &[&'static str] {
        &self.removes
    }

    /// The `ADD`s of set members.
    pub(crate) fn set_additions(&self) -> &[(&'static str, Value)] {
        &self.adds
    }

    /// The `DELETE`s of set members.
    pub(crate) fn set_deletions(&self) -> &[(&'static str, Value)] {
        &self.deletes
    }

    /// The `UpdateExpression`, adding names and values to `placeholders`.
    pub fn render(&self, p: &mut Placeholders) -> Result<String, AttributeError> {
        if let Some(key) = self.shard_keys.first() {
            return Err(AttributeError::Invalid(format!(
                "sharded index key `{}` needs the table key of the item updated to pick its shard: send the update through the client",
                key.attribute
            )));
        }
        let mut clauses = Vec::new();
        if !self.sets.is_empty() {
            let mut parts = Vec::with_capacity(self.sets.len());
            for (name, action) in &self.sets {
                let n = p.name(name);
                parts.push(match action {
                    SetAction::Value(v) => format!("{n} = {}", p.value(v.clone()?)),
                    SetAction::IfNotExists(v) => {
                        format!("{n} = if_not_exists({n}, {})", p.value(v.clone()?))
                    }
                    SetAction::CopyOr(source, v) => {
                        let source = p.name(source);
                        format!("{n} = if_not_exists({source}, {})", p.value(v.clone()))
                    }
                    SetAction::Add(v, zero) | SetAction::Subtract(v, zero) => {
                        let op = if matches!(action, SetAction::Add(..)) {
                            '+'
                        } else {
                            '-'
                        };
                        let zero = p.value(zero.clone());
                        format!(
                            "{n} = if_not_exists({n}, {zero}) {op} {}",
                            p.value(v.clone()?)
                        )
                    }
                    SetAction::Append(v) => {
                        let empty = p.value(AttributeValue::L(Vec::new()));
                        format!(
                            "{n} = list_append(if_not_exists({n}, {empty}), {})",
                            p.value(v.clone()?)
                        )
                    }
                    SetAction::Prepend(v) => {
                        let empty = p.value(AttributeValue::L(Vec::new()));
                        let items = p.value(v.clone()?);
                        format!("{n} = list_append({items}, if_not_exists({n}, {empty}))")
                    }
                });
            }
            clauses.push(format!("SET {}", parts.join(", ")));
        }
        let names: Vec<String> = self.removes_not_set().map(|name| p.name(name)).collect();
        if !names.is_empty() {
            clauses.push(format!("REMOVE {}", names.join(", ")));
        }
        for (keyword, actions) in [("ADD", &self.adds), ("DELETE", &self.deletes)] {
            if !actions.is_empty() {
                let mut parts = Vec::with_capacity(actions.len());
                for (name, v) in actions {
                    let n = p.name(name);
                    parts.push(format!("{n} {}", p.value(v.clone()?)));
                }
                clauses.push(format!("{keyword} {}", parts.join(", ")));
            }
        }
        Ok(clauses.join(" "))
    }
}

/// A change of index key composites that go together, with every index key
/// they are part of recomposed. Made by the entity's generated group setter
/// (`Task::set_priority_status(3, Status::Done)`); applied with
/// [`Update::apply`].
#[derive(Debug)]
pub struct IndexChange<E> {
    sets: Vec<(String, Value)>,
    removes: Vec<&'static str>,
    guards: Vec<Condition<E>>,
    fixed: Vec<(String, Option<AttributeValue>)>,
    shard_keys: Vec<ShardKey>,
}

impl<E> Default for IndexChange<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// The steps of a group setter's change, for generated code: inherent, so
/// no trait in the caller's scope can make a call ambiguous. Not a public
/// API.
#[doc(hidden)]
impl<E> IndexChange<E> {
    pub fn __start() -> Self {
        <Self as crate::__private::IndexChangeSteps>::start()
    }
    pub fn __field<T: crate::KeyPart>(
        self,
        attribute: &str,
        value: &impl crate::KeyArg<T>,
    ) -> Self {
        crate::__private::IndexChangeSteps::with_field::<T>(self, attribute, value)
    }
    pub fn __key(self, attribute: &str, key: String) -> Self {
        crate::__private::IndexChangeSteps::with_key(self, attribute, key)
    }
    pub fn __shard_key(self, attribute: &str, base: String, spec: crate::key::ShardSpec) -> Self {
        crate::__private::IndexChangeSteps::with_shard_key(self, attribute, base, spec)
    }
    pub fn __guard<T: crate::KeyPart>(
        self,
        attribute: &str,
        value: &impl crate::KeyArg<T>,
    ) -> Self {
        crate::__private::IndexChangeSteps::with_guard::<T>(self, attribute, value)
    }
    pub fn __optional_field<T: crate::KeyPart>(
        self,
        attribute: &'static str,
        value: &Option<impl crate::KeyArg<T>>,
    ) -> Self {
        crate::__private::IndexChangeSteps::with_optional_field::<T>(self, attribute, value)
    }
    pub fn __remove_key(self, attribute: &'static str) -> Self {
        crate::__private::IndexChangeSteps::without_key(self, attribute)
    }
    pub fn __optional_guard<T: crate::KeyPart>(
        self,
        attribute: &'static str,
        value: &Option<impl crate::KeyArg<T>>,
    ) -> Self {
        crate::__private::IndexChangeSteps::with_optional_guard::<T>(self, attribute, value)
    }
}

impl<E> IndexChange<E> {
    /// An empty change (generated code fills it).
    pub(crate) fn new() -> Self {
        Self {
            sets: Vec::new(),
            removes: Vec::new(),
            guards: Vec::new(),
            fixed: Vec::new(),
            shard_keys: Vec::new(),
        }
    }

    /// Sets a recomposed sharded partition key, whose shard the table key
    /// of the item updated picks when the update is sent.
    pub(crate) fn shard_key(
        mut self,
        attribute: &str,
        base: String,
        spec: crate::key::ShardSpec,
    ) -> Self {
        self.shard_keys.push(ShardKey {
            attribute: attribute.to_owned(),
            base,
            spec,
        });
        self
    }

    /// Removes an attribute: an optional composite set to `None`, or a key
    /// of the sparse index it leaves.
    pub(crate) fn remove(mut self, attribute: &'static str) -> Self {
        self.removes.push(attribute);
        self
    }

    /// Requires an optional composite, used in a recomposed key, to be
    /// absent, as the value given (`None`) says.
    pub(crate) fn guard_absent(mut self, attribute: &'static str) -> Self {
        self.guards.push(Condition::attribute_not_exists(attribute));
        self.fixed.push((attribute.to_owned(), None));
        self
    }

    /// Sets a field.
    pub(crate) fn field(mut self, attribute: &str, value: Value) -> Self {
        self.sets.push((attribute.to_owned(), value));
        self
    }

    /// Sets a recomposed key.
    pub(crate) fn key(mut self, attribute: &str, key: String) -> Self {
        self.sets
            .push((attribute.to_owned(), Ok(AttributeValue::S(key))));
        self
    }

    /// Requires a table key composite, used in a recomposed key, to hold the
    /// value it was given. A value that fails to convert fails the update
    /// when it renders, never drops the guard.
    pub(crate) fn guard(mut self, attribute: &str, value: Value) -> Self {
        if let Ok(fixed) = &value {
            self.fixed.push((attribute.to_owned(), Some(fixed.clone())));
        }
        self.guards
            .push(Condition::attribute_equals_value(attribute, value));
        self
    }
}
