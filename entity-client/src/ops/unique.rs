//! Unique constraints (`#[entity(unique(email))]`): one sentinel item per
//! constrained value, written and removed in the same transaction as the
//! entity, and a strongly consistent lookup through it.
//!
//! A sentinel lives in a partition of its own, keyed
//! `__unique#<schema>#<Entity>#<constraint>#<value>` (a key no entity key can be:
//! composed values escape `#`, and entity keys start with their template),
//! so it is in no entity's partition, no collection and no secondary index;
//! its identity attribute says `__unique`, so no scan reads it as an entity.
//! It holds the owner's table key, the back-reference a lookup follows.
//!
//! A tenant entity's value starts with its tenant (the derive composes it
//! in: `__unique#<schema>#<Entity>#<constraint>#<tenant>#<value>`), so a
//! value is unique within its tenant, and a tenant client's request check
//! reads the tenant out of the sentinel's key ([`sentinel_tenant`]) and
//! refuses another tenant's sentinel like another tenant's item.

use super::{condition_only, Companion, Conditional};
use crate::error::{Error, Result};
use crate::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem};
use entity_core::expr::Condition;
use entity_core::managed::UniqueModel;
use entity_core::{Entity, EntityModel, Item, KeyTenant};

/// The identity attribute's value in every sentinel.
pub const SENTINEL_IDENTITY: &str = "__unique";
/// The attribute holding the owner's partition key.
const OWNER_PK: &str = "__owner_pk";
/// The attribute holding the owner's sort key, on tables with one.
const OWNER_SK: &str = "__owner_sk";

/// The table key of the sentinel of `value` of `constraint`.
pub(crate) fn sentinel_key<E: Entity>(constraint: &UniqueModel, value: &str) -> Item {
    let primary = &E::MODEL.primary;
    let mut key = Item::with_capacity(2);
    key.insert(
        primary.pk.attribute.to_owned(),
        AttributeValue::S(format!(
            "{SENTINEL_IDENTITY}#{}#{}#{}#{value}",
            E::MODEL.schema,
            E::MODEL.name,
            constraint.name
        )),
    );
    if let Some(sk) = primary.sk {
        key.insert(
            sk.attribute.to_owned(),
            AttributeValue::S(SENTINEL_IDENTITY.to_owned()),
        );
    }
    key
}

/// Whether key text is a sentinel's (no entity key starts like one).
pub(crate) fn is_sentinel_key(value: &str) -> bool {
    value
        .strip_prefix(SENTINEL_IDENTITY)
        .is_some_and(|rest| rest.starts_with(entity_core::key::SEPARATOR))
}

/// The tenant that `value` of `attribute` carries when it is the key of a
/// sentinel of tenant entity `model`: the key text after the constraint,
/// up to the next separator, as a key escapes it. Another entity's
/// sentinel (or a constraint `model` does not have) is no key of `model`'s.
pub(crate) fn sentinel_tenant(model: &EntityModel, attribute: &str, value: &str) -> KeyTenant {
    if model.tenant.is_none() || attribute != model.primary.pk.attribute {
        return KeyTenant::NotTenantKey;
    }
    let separator = entity_core::key::SEPARATOR;
    let Some(rest) = value
        .strip_prefix(SENTINEL_IDENTITY)
        .and_then(|rest| rest.strip_prefix(separator))
        .and_then(|rest| rest.strip_prefix(model.schema))
        .and_then(|rest| rest.strip_prefix(separator))
        .and_then(|rest| rest.strip_prefix(model.name))
        .and_then(|rest| rest.strip_prefix(separator))
    else {
        return KeyTenant::NotTenantKey;
    };
    let Some((constraint, rest)) = rest.split_once(separator) else {
        return KeyTenant::NotTenantKey;
    };
    if !model.managed.unique.iter().any(|c| c.name == constraint) {
        return KeyTenant::NotTenantKey;
    }
    let tenant = rest.split(separator).next().unwrap_or_default();
    match entity_core::key::unescape(tenant) {
        Ok(tenant) if !tenant.is_empty() => KeyTenant::Tenant(tenant.into_owned()),
        _ => KeyTenant::Unreadable,
    }
}

/// The owner reference a sentinel stores: the owner's table key values.
fn owner_attributes<E: Entity>(owner: &Item) -> Vec<(&'static str, AttributeValue)> {
    let primary = &E::MODEL.primary;
    let mut out = Vec::with_capacity(2);
    if let Some(pk) = owner.get(primary.pk.attribute) {
        out.push((OWNER_PK, pk.clone()));
    }
    if let Some(sk) = primary.sk.and_then(|sk| owner.get(sk.attribute)) {
        out.push((OWNER_SK, sk.clone()));
    }
    out
}

/// "The sentinel is free, or already ours": what writing or deleting our
/// sentinel requires.
fn free_or_ours<E: Entity>(owner: &Item) -> Condition<E> {
    let ours = owner_attributes::<E>(owner)
        .into_iter()
        .map(|(attribute, value)| entity_core::__private::condition_equals(attribute, value))
        .reduce(Condition::and);
    let free = entity_core::__private::condition_not_exists(E::MODEL.primary.pk.attribute);
    match ours {
        Some(ours) => free.or(ours),
        None => free,
    }
}

/// A Put of the sentinel of `value` owned by the item `owner`, if it is
/// free or already `owner`'s.
fn put_sentinel<E: Entity>(
    table: &str,
    constraint: &'static UniqueModel,
    value: String,
    owner: &Item,
) -> Result<Companion> {
    put_sentinel_from::<E>(table, constraint, value, owner, owner)
}

/// A Put of the sentinel of `value` owned by `owner`, if it is free or
/// `previous`'s (an item moving to a new key takes its sentinels along).
fn put_sentinel_from<E: Entity>(
    table: &str,
    constraint: &'static UniqueModel,
    value: String,
    owner: &Item,
    previous: &Item,
) -> Result<Companion> {
    let mut item = sentinel_key::<E>(constraint, &value);
    item.insert(
        E::MODEL.identity_attribute.to_owned(),
        AttributeValue::S(SENTINEL_IDENTITY.to_owned()),
    );
    for (attribute, owner_value) in owner_attributes::<E>(owner) {
        item.insert(attribute.to_owned(), owner_value);
    }
    let condition = condition_only(Some(&free_or_ours::<E>(previous)), "unique sentinel")?;
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(item))
        .expressions(condition)
        .build()
        .map_err(invalid)?;
    Ok(Companion {
        key: sentinel_key::<E>(constraint, &value),
        item: TransactWriteItem::builder().put(put).build(),
        violation: Some((constraint.name, value)),
        reclaim: Some(reclaim_boxed::<E>),
        slot: false,
    })
}

/// A Delete of the sentinel of `value`, if it is free or ours (never
/// another item's).
fn delete_sentinel<E: Entity>(
    table: &str,
    constraint: &UniqueModel,
    value: &str,
    owner: &Item,
) -> Result<Companion> {
    let condition = condition_only(Some(&free_or_ours::<E>(owner)), "unique sentinel")?;
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(sentinel_key::<E>(constraint, value)))
        .expressions(condition)
        .build()
        .map_err(invalid)?;
    Ok(Companion {
        key: sentinel_key::<E>(constraint, value),
        item: TransactWriteItem::builder().delete(delete).build(),
        violation: None,
        reclaim: None,
        slot: false,
    })
}

fn invalid(e: aws_sdk_dynamodb::error::BuildError) -> Error {
    crate::ValidationError::InvalidRequest(e.to_string()).into()
}

/// The sentinels a write moves: for each constraint whose value changes
/// from `old` to `new`, delete the old value's and put the new one's.
/// `owner` is the item's key (or whole item).
pub(crate) fn moves<E: Entity>(
    client: &Client,
    old: &[Option<String>],
    new: &[Option<String>],
    owner: &Item,
) -> Result<Vec<Companion>> {
    let table = client.checked_table()?;
    let mut companions = Vec::new();
    for (i, constraint) in E::MODEL.managed.unique.iter().enumerate() {
        let (before, after) = (old.get(i).cloned().flatten(), new.get(i).cloned().flatten());
        if before == after {
            continue;
        }
        if let Some(before) = before {
            companions.push(delete_sentinel::<E>(table, constraint, &before, owner)?);
        }
        if let Some(after) = after {
            companions.push(put_sentinel::<E>(table, constraint, after, owner)?);
        }
    }
    Ok(companions)
}

/// The sentinels of an item that moves from the table key of `previous` to
/// that of `moved` (a migration that changes its key): each points to the
/// new key, in the move's transaction.
pub(crate) fn repoint<E: Entity>(
    client: &Client,
    previous: &Item,
    moved: &Item,
) -> Result<Vec<Companion>> {
    if E::MODEL.managed.unique.is_empty() {
        return Ok(Vec::new());
    }
    let table = client.checked_table()?;
    let values = E::from_item(moved.clone())?.unique_values();
    E::MODEL
        .managed
        .unique
        .iter()
        .zip(values)
        .filter_map(|(constraint, value)| Some((constraint, value?)))
        .map(|(constraint, value)| {
            put_sentinel_from::<E>(table, constraint, value, moved, previous)
        })
        .collect()
}

/// The sentinels of an item moving from the key of `previous` (which
/// holds the values `held`) to that of `moved` (holding `holds`), in the
/// move's transaction: a value it keeps points to the new key, one it
/// drops is freed, one it takes is claimed.
pub(crate) fn rekey_moves<E: Entity>(
    client: &Client,
    (previous, held): (&Item, &[Option<String>]),
    (moved, holds): (&Item, &[Option<String>]),
) -> Result<Vec<Companion>> {
    let table = client.checked_table()?;
    let mut companions = Vec::new();
    for (i, constraint) in E::MODEL.managed.unique.iter().enumerate() {
        let (before, after) = (
            held.get(i).cloned().flatten(),
            holds.get(i).cloned().flatten(),
        );
        if let (Some(before), Some(after)) = (&before, &after) {
            if before == after {
                let value = after.clone();
                companions.push(put_sentinel_from::<E>(
                    table, constraint, value, moved, previous,
                )?);
                continue;
            }
        }
        if let Some(before) = before {
            companions.push(delete_sentinel::<E>(table, constraint, &before, previous)?);
        }
        if let Some(after) = after {
            companions.push(put_sentinel::<E>(table, constraint, after, moved)?);
        }
    }
    Ok(companions)
}

/// A unique value an item holds that another item's sentinel already
/// claims: two stored items share a value of a unique constraint (they were
/// written before the constraint existed). A migration with
/// [`backfill_unique`](crate::ops::migrate::Migrate::backfill_unique)
/// reports it and leaves both items and the sentinel as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct UniqueConflict {
    /// The constraint (`email`).
    pub constraint: &'static str,
    /// The value as the sentinel stores it.
    pub value: String,
    /// The table key of the item whose sentinel could not be written.
    pub key: Item,
    /// The table key of the item the sentinel names.
    pub owner: Option<Item>,
}

/// What backfilling one item's sentinels did.
#[derive(Debug, Default)]
pub(crate) struct Backfilled {
    /// Sentinels written (in a dry run: missing, that would be).
    pub written: u64,
    /// Values another item's sentinel claims.
    pub conflicts: Vec<UniqueConflict>,
}

/// Makes sure each unique value of `owner` (an item of `E` as the current
/// definition writes it; `values`, its `unique_values()`) has its sentinel, naming
/// `owner`: a missing one is written, one already `owner`'s is left, and
/// one naming another item is a conflict. A dry run reads the sentinels
/// instead of writing them, and also takes a sentinel naming `stored` (the
/// item's key before a migration would move it) as the item's own.
pub(crate) async fn backfill<E: Entity>(
    client: &Client,
    values: Vec<Option<String>>,
    owner: &Item,
    stored: &Item,
    dry_run: bool,
) -> Result<Backfilled> {
    let mut out = Backfilled::default();
    let table = client.checked_table()?;
    let reference = owner_attributes::<E>(owner);
    let key_of = |item: &Item| crate::ops::table_key::<E>(item);
    for (constraint, value) in E::MODEL.managed.unique.iter().zip(values) {
        let Some(value) = value else { continue };
        let key = sentinel_key::<E>(constraint, &value);
        let conflict = |sentinel: Option<Item>| UniqueConflict {
            constraint: constraint.name,
            value: value.clone(),
            key: key_of(owner),
            owner: sentinel.and_then(owner_key::<E>),
        };
        match client.get_raw(E::MODEL.name, key, true).await? {
            Some(sentinel)
                if names_owner(&sentinel, &reference)
                    || (dry_run && names_owner(&sentinel, &owner_attributes::<E>(stored))) => {}
            Some(sentinel) => out.conflicts.push(conflict(Some(sentinel))),
            None if dry_run => out.written += 1,
            None => {
                // The sentinel, only while the owner still holds the value:
                // a write that changed it meanwhile must not leave the old
                // value claimed.
                let put = put_sentinel::<E>(table, constraint, value.clone(), owner)?;
                let holds = condition_only(Some(&still_holds::<E>(owner)), "unique owner")?;
                let check = aws_sdk_dynamodb::types::ConditionCheck::builder()
                    .table_name(table)
                    .set_key(Some(key_of(owner)))
                    .expressions(holds)
                    .build()
                    .map_err(invalid)?;
                let sent = client
                    .inner
                    .sdk
                    .transact_write_items()
                    .transact_items(put.item)
                    .transact_items(TransactWriteItem::builder().condition_check(check).build())
                    .send()
                    .await
                    .map_err(|e| crate::error::from_sdk("TransactWriteItems", E::MODEL.name, e));
                match sent {
                    Ok(_) => out.written += 1,
                    Err(Error::TransactionCanceled { reasons, source }) => {
                        let failed = |i: usize| {
                            reasons
                                .iter()
                                .find(|r| r.index == i && r.is_condition_failed())
                        };
                        if let Some(taken) = failed(0) {
                            // Another item claimed the value in between.
                            out.conflicts.push(conflict(taken.item.clone()));
                        } else if failed(1).is_none() {
                            return Err(Error::TransactionCanceled { reasons, source });
                        }
                        // Otherwise the owner changed the value meanwhile:
                        // its own write moved the sentinels.
                    }
                    Err(other) => return Err(other),
                }
            }
        }
    }
    Ok(out)
}

/// The owner item (`owner`, as read) still exists and holds the unique
/// values it held.
pub(crate) fn still_holds<E: Entity>(owner: &Item) -> Condition<E> {
    let mut holds = entity_core::__private::condition_exists(E::MODEL.primary.pk.attribute);
    for constraint in E::MODEL.managed.unique {
        for attribute in constraint.attributes {
            let same = match owner.get(*attribute) {
                Some(value) => entity_core::__private::condition_equals(attribute, value.clone()),
                None => entity_core::__private::condition_not_exists(attribute),
            };
            holds = holds.and(same);
        }
    }
    holds
}

/// Whether `sentinel` names the owner whose key attributes are `owner`.
fn names_owner(sentinel: &Item, owner: &[(&'static str, AttributeValue)]) -> bool {
    owner
        .iter()
        .all(|(attribute, value)| sentinel.get(*attribute) == Some(value))
}

/// [`reclaim_stale`] as a companion carries it: a plain function pointer,
/// so a transaction of several entities can hold one per sentinel.
fn reclaim_boxed<'a, E: Entity>(
    client: &'a Client,
    constraint: &'a str,
    value: &'a str,
) -> super::BoxFuture<'a, Result<bool>> {
    let Some(index) = E::MODEL
        .managed
        .unique
        .iter()
        .position(|c| c.name == constraint)
    else {
        return Box::pin(async { Ok(false) });
    };
    let stale = Stale {
        model: E::MODEL,
        key: sentinel_key::<E>(&E::MODEL.managed.unique[index], value),
        index,
        value,
        holds: holds_value::<E>,
    };
    Box::pin(stale.reclaim(client))
}

/// Whether the stored `item` holds `value` as its unique value `index`
/// (live, and not changed since): a sentinel naming it is not stale.
fn holds_value<E: Entity>(client: &Client, item: Item, index: usize, value: &str) -> bool {
    if !super::lifecycle::holds_unique::<E>(client, &item) {
        return false;
    }
    match E::from_item(item) {
        Ok(entity) => {
            entity
                .unique_values()
                .get(index)
                .cloned()
                .flatten()
                .as_deref()
                == Some(value)
        }
        // An item the entity cannot read keeps its claim.
        Err(_) => true,
    }
}

/// Frees the sentinel of `value` of `constraint` if it is stale: the item
/// it names is gone (deleted by DynamoDB's TTL sweep, or by a write that
/// bypassed the client), expired, soft-deleted without `keep_unique`, or
/// no longer holds the value. Such a value reads as free (`get_unique`
/// finds no item), so a write that a stale sentinel refused may take it:
/// `true` when the write may be sent again (the sentinel was freed, or is
/// gone already). The sentinel is deleted only while it still names the
/// owner that was read, so a live claim made meanwhile is never lost.
pub(crate) async fn reclaim_stale<E: Entity>(
    client: &Client,
    constraint: &str,
    value: &str,
) -> Result<bool> {
    reclaim_boxed::<E>(client, constraint, value).await
}

/// A sentinel that may be stale, and how to tell.
struct Stale<'a> {
    model: &'static EntityModel,
    key: Item,
    index: usize,
    value: &'a str,
    holds: fn(&Client, Item, usize, &str) -> bool,
}

impl Stale<'_> {
    async fn reclaim(self, client: &Client) -> Result<bool> {
        let name = self.model.name;
        let Some(sentinel) = client.get_raw(name, self.key.clone(), true).await? else {
            return Ok(true);
        };
        let Some(owner) = owner_key_in(&self.model.primary, sentinel.clone()) else {
            return Ok(false);
        };
        let stale = match client.get_raw(name, owner, true).await? {
            None => true,
            Some(item) => !(self.holds)(client, item, self.index, self.value),
        };
        if !stale {
            return Ok(false);
        }
        let mut names = std::collections::HashMap::new();
        let mut values = std::collections::HashMap::new();
        let mut conditions = Vec::new();
        for (i, attribute) in [OWNER_PK, OWNER_SK].into_iter().enumerate() {
            if let Some(value) = sentinel.get(attribute) {
                names.insert(format!("#o{i}"), attribute.to_owned());
                values.insert(format!(":o{i}"), value.clone());
                conditions.push(format!("#o{i} = :o{i}"));
            }
        }
        let deleted = client
            .inner
            .sdk
            .delete_item()
            .table_name(client.checked_table()?)
            .set_key(Some(self.key))
            .condition_expression(conditions.join(" AND "))
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .send()
            .await
            .map_err(|e| crate::error::from_sdk("DeleteItem", name, e));
        match deleted {
            // Claimed again meanwhile: the write, sent again, says by whom.
            Ok(_) => Ok(true),
            Err(e) if e.is_condition_failed() => Ok(true),
            Err(e) => Err(e),
        }
    }
}

/// The owner's table key a sentinel names.
pub(crate) fn owner_key<E: Entity>(sentinel: Item) -> Option<Item> {
    owner_key_in(&E::MODEL.primary, sentinel)
}

/// The owner's key a sentinel names, on a table keyed as `primary`.
fn owner_key_in(primary: &entity_core::IndexModel, sentinel: Item) -> Option<Item> {
    let mut key = Item::with_capacity(2);
    key.insert(
        primary.pk.attribute.to_owned(),
        sentinel.get(OWNER_PK)?.clone(),
    );
    if let Some(sk) = primary.sk {
        key.insert(sk.attribute.to_owned(), sentinel.get(OWNER_SK)?.clone());
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(entity_core::Entity)]
    #[entity(schema = "crm", tenant = tenant_id, unique(email))]
    #[pk(tenant_id)]
    #[sk(id)]
    struct Customer {
        tenant_id: String,
        id: String,
        email: String,
    }

    #[derive(entity_core::Entity)]
    #[entity(schema = "crm", tenant = tenant_id, unique(email))]
    #[pk(tenant_id)]
    #[sk(id)]
    struct Lead {
        tenant_id: String,
        id: String,
        email: String,
    }

    fn sentinel_pk(tenant: &str, email: &str) -> String {
        let customer = Customer {
            tenant_id: tenant.into(),
            id: "c1".into(),
            email: email.into(),
        };
        let value = customer.unique_values().remove(0).expect("a value");
        let key = sentinel_key::<Customer>(&Customer::MODEL.managed.unique[0], &value);
        match &key["pk"] {
            AttributeValue::S(pk) => pk.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_tenant_entitys_sentinel_carries_its_tenant_and_the_guard_reads_it() {
        let pk = sentinel_pk("a#b", "x#y@z");
        assert_eq!(pk, "__unique#crm#Customer#email#a%23b#x%23y@z");
        assert!(is_sentinel_key(&pk));
        let read = |model, attribute, value| sentinel_tenant(model, attribute, value);
        assert_eq!(
            read(Customer::MODEL, "pk", &pk),
            KeyTenant::Tenant("a#b".into())
        );
        // The lookup, completed, names the same sentinel.
        let lookup = Customer::by_email("x#y@z").for_tenant("a#b");
        assert_eq!(
            sentinel_key::<Customer>(lookup.constraint(), lookup.value())["pk"],
            AttributeValue::S(pk.clone())
        );
        // Another entity's sentinel, another attribute, or a constraint the
        // entity lacks is no key of the entity's.
        assert_eq!(read(Lead::MODEL, "pk", &pk), KeyTenant::NotTenantKey);
        assert_eq!(read(Customer::MODEL, "sk", &pk), KeyTenant::NotTenantKey);
        let other = "__unique#crm#Customer#phone#a#1";
        assert_eq!(read(Customer::MODEL, "pk", other), KeyTenant::NotTenantKey);
        // A tenant that does not decode is unreadable (refused).
        let bad = "__unique#crm#Customer#email#a%2#x";
        assert_eq!(read(Customer::MODEL, "pk", bad), KeyTenant::Unreadable);
        assert!(!is_sentinel_key("__uniquex#crm"));
    }
}
