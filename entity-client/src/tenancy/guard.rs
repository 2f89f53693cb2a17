//! Defence in depth for tenant clients: an SDK interceptor that reads
//! every request before it is serialized and refuses it, unsent, unless
//! each key it names is the tenant's: the `Key` of an item request, the
//! key attributes of an item written, every key of a batch or
//! transaction, the partition equalities of a query's key condition and
//! its `ExclusiveStartKey`. A scan, which reads every partition, is
//! refused whole.
//!
//! A key value is read by the entities the tenant client was asked about
//! (each registers its [`TenantEntity::key_tenant`] on first use, a
//! collection each of its members'): it is the tenant's when one of them
//! reads this tenant from it and none reads another. A unique sentinel's
//! key (`__unique#...`) is read only as one: the tenant it carries, for
//! the entity whose sentinel it is ([`crate::ops::unique`]).

use crate::error::Refusal;
use crate::ops::unique::{is_sentinel_key, sentinel_tenant};
use aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::{
    batch_get_item::BatchGetItemInput, batch_write_item::BatchWriteItemInput,
    delete_item::DeleteItemInput, get_item::GetItemInput, put_item::PutItemInput,
    query::QueryInput, scan::ScanInput, transact_get_items::TransactGetItemsInput,
    transact_write_items::TransactWriteItemsInput, update_item::UpdateItemInput,
};
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::{EntityModel, Item, KeyTenant, KeyTenantReader, TenantReadable};
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// How the guard reads one entity's keys: its model (for its unique
/// sentinels' keys) and its key reader.
type Reader = (&'static EntityModel, KeyTenantReader);

/// One tenant client's tenant, and the entities it was asked about (by the
/// entity or collection that brought them).
#[derive(Debug)]
pub(crate) struct KeyCheck {
    pub(crate) tenant: Arc<str>,
    readers: RwLock<Vec<(TypeId, Reader)>>,
}

/// What one key value says about its tenant.
enum Verdict {
    Ours,
    Refused(Option<String>),
    NotAKey,
}

impl KeyCheck {
    pub(crate) fn new(tenant: Arc<str>) -> Self {
        Self {
            tenant,
            readers: RwLock::new(Vec::new()),
        }
    }

    /// Lets the guard read the keys of `R` (an entity, or each member of
    /// a collection).
    pub(crate) fn register<R: TenantReadable + 'static>(&self) {
        let id = TypeId::of::<R>();
        let known = |readers: &Vec<(TypeId, Reader)>| readers.iter().any(|(t, _)| *t == id);
        if self.readers.read().is_ok_and(|r| known(&r)) {
            return;
        }
        if let Ok(mut readers) = self.readers.write() {
            if !known(&readers) {
                readers.extend(R::tenant_readers().into_iter().map(|reader| (id, reader)));
            }
        }
    }

    /// Refuses `key` (a table key about to be written) unless it is this
    /// tenant's, as the guard would refuse its request: for writes that
    /// must be refused before anything of a larger request is sent.
    pub(crate) fn check_key(&self, key: &Item) -> Result<(), crate::Error> {
        self.check_map(Some(key))
            .map_err(|refusal| crate::Error::TenantMismatch {
                expected: refusal.expected,
                found: refusal.found,
            })
    }

    fn refusal(&self, found: Option<String>) -> Refusal {
        Refusal {
            expected: self.tenant.to_string(),
            found,
        }
    }

    fn verdict(&self, attribute: &str, value: &AttributeValue) -> Verdict {
        let AttributeValue::S(value) = value else {
            return Verdict::NotAKey;
        };
        let Ok(readers) = self.readers.read() else {
            return Verdict::Refused(None);
        };
        let (mut ours, mut other, mut unreadable) = (false, None, false);
        let sentinel = is_sentinel_key(value);
        for (_, (model, read)) in readers.iter() {
            let read = match sentinel {
                true => sentinel_tenant(model, attribute, value),
                false => read(attribute, value),
            };
            match read {
                KeyTenant::Tenant(t) if *t == *self.tenant => ours = true,
                KeyTenant::Tenant(t) => other = Some(t),
                KeyTenant::Unreadable => unreadable = true,
                KeyTenant::NotTenantKey => {}
            }
        }
        match (ours, other) {
            (_, Some(other)) => Verdict::Refused(Some(other)),
            (true, None) => Verdict::Ours,
            (false, None) if unreadable => Verdict::Refused(None),
            (false, None) => Verdict::NotAKey,
        }
    }

    /// Every tenant key of `pairs` is ours, and there is at least one.
    fn check<'a>(
        &self,
        pairs: impl IntoIterator<Item = (&'a str, &'a AttributeValue)>,
    ) -> Result<(), Refusal> {
        let mut addressed = false;
        for (attribute, value) in pairs {
            match self.verdict(attribute, value) {
                Verdict::Ours => addressed = true,
                Verdict::Refused(found) => return Err(self.refusal(found)),
                Verdict::NotAKey => {}
            }
        }
        match addressed {
            true => Ok(()),
            false => Err(self.refusal(None)),
        }
    }

    fn check_map(&self, map: Option<&Item>) -> Result<(), Refusal> {
        let map = map.ok_or_else(|| self.refusal(None))?;
        self.check(map.iter().map(|(k, v)| (k.as_str(), v)))
    }

    /// A query's key condition: its equalities (the partition, and each
    /// partition attribute of a multi-attribute index).
    fn check_query(&self, input: &QueryInput) -> Result<(), Refusal> {
        let empty = HashMap::new();
        let names = input.expression_attribute_names.as_ref().unwrap_or(&empty);
        let no_values = HashMap::new();
        let values = input
            .expression_attribute_values
            .as_ref()
            .unwrap_or(&no_values);
        let condition = input
            .key_condition_expression
            .as_deref()
            .unwrap_or_default();
        let equalities = condition.split(" AND ").filter_map(|clause| {
            let clause = clause.trim().trim_start_matches('(').trim_end_matches(')');
            let (name, value) = clause.split_once(" = ")?;
            let attribute = names.get(name.trim()).map_or(name.trim(), String::as_str);
            Some((attribute, values.get(value.trim())?))
        });
        self.check(equalities)?;
        match &input.exclusive_start_key {
            Some(start) => self.check_map(Some(start)),
            None => Ok(()),
        }
    }

    /// Checks one request's typed input.
    fn check_input(
        &self,
        input: &aws_smithy_runtime_api::client::interceptors::context::Input,
    ) -> Result<(), Refusal> {
        if let Some(i) = input.downcast_ref::<GetItemInput>() {
            return self.check_map(i.key.as_ref());
        }
        if let Some(i) = input.downcast_ref::<PutItemInput>() {
            return self.check_map(i.item.as_ref());
        }
        if let Some(i) = input.downcast_ref::<UpdateItemInput>() {
            return self.check_map(i.key.as_ref());
        }
        if let Some(i) = input.downcast_ref::<DeleteItemInput>() {
            return self.check_map(i.key.as_ref());
        }
        if let Some(i) = input.downcast_ref::<QueryInput>() {
            return self.check_query(i);
        }
        if input.downcast_ref::<ScanInput>().is_some() {
            return Err(self.refusal(None));
        }
        if let Some(i) = input.downcast_ref::<BatchGetItemInput>() {
            let mut keys = i.request_items.iter().flatten().flat_map(|(_, k)| &k.keys);
            return keys.try_for_each(|key| self.check_map(Some(key)));
        }
        if let Some(i) = input.downcast_ref::<BatchWriteItemInput>() {
            let mut requests = i.request_items.iter().flatten().flat_map(|(_, r)| r);
            return requests.try_for_each(|r| match (&r.put_request, &r.delete_request) {
                (Some(put), _) => self.check_map(Some(&put.item)),
                (None, Some(delete)) => self.check_map(Some(&delete.key)),
                (None, None) => Err(self.refusal(None)),
            });
        }
        if let Some(i) = input.downcast_ref::<TransactWriteItemsInput>() {
            return i.transact_items.iter().flatten().try_for_each(|item| {
                let map = item
                    .put
                    .as_ref()
                    .map(|p| &p.item)
                    .or(item.update.as_ref().map(|u| &u.key))
                    .or(item.delete.as_ref().map(|d| &d.key))
                    .or(item.condition_check.as_ref().map(|c| &c.key));
                self.check_map(map)
            });
        }
        if let Some(i) = input.downcast_ref::<TransactGetItemsInput>() {
            return i
                .transact_items
                .iter()
                .flatten()
                .try_for_each(|item| self.check_map(item.get.as_ref().map(|g| &g.key)));
        }
        Ok(()) // table operations name no item
    }
}

/// The interceptor of a tenant client's SDK client.
#[derive(Debug)]
pub(crate) struct TenantGuard {
    pub(crate) scope: Arc<KeyCheck>,
}

impl Intercept for TenantGuard {
    fn name(&self) -> &'static str {
        "entity_client::tenant"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.scope
            .check_input(context.input())
            .map_err(|refusal| Box::new(refusal) as BoxError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    fn product_tenant(attribute: &str, value: &str) -> KeyTenant {
        match (attribute, value.strip_prefix("PRODUCT#")) {
            ("pk", Some(tenant)) if !tenant.contains('#') => KeyTenant::Tenant(tenant.to_owned()),
            ("pk", _) => KeyTenant::Unreadable,
            _ => KeyTenant::NotTenantKey,
        }
    }

    fn scope() -> KeyCheck {
        let scope = KeyCheck::new("a".into());
        scope.readers.write().unwrap().push((
            TypeId::of::<()>(),
            (
                &entity_core::__private::MODEL_DEFAULTS,
                product_tenant as KeyTenantReader,
            ),
        ));
        scope
    }

    fn key(pk: &str) -> Item {
        HashMap::from([
            ("pk".to_owned(), AttributeValue::S(pk.to_owned())),
            ("sk".to_owned(), AttributeValue::S("p1".to_owned())),
        ])
    }

    fn query(pk: &str, start: Option<Item>) -> QueryInput {
        QueryInput::builder()
            .table_name("t")
            .key_condition_expression("#pk = :pk AND begins_with(#sk, :sk1)")
            .expression_attribute_names("#pk", "pk")
            .expression_attribute_names("#sk", "sk")
            .expression_attribute_values(":pk", AttributeValue::S(pk.to_owned()))
            .expression_attribute_values(":sk1", AttributeValue::S("x".to_owned()))
            .set_exclusive_start_key(start)
            .build()
            .unwrap()
    }

    fn refused(found: Option<&str>) -> Result<(), Refusal> {
        Err(Refusal {
            expected: "a".into(),
            found: found.map(str::to_owned),
        })
    }

    #[test]
    fn item_keys_of_the_tenant_pass_others_are_refused() {
        let scope = scope();
        assert_eq!(scope.check_map(Some(&key("PRODUCT#a"))), Ok(()));
        assert_eq!(scope.check_map(Some(&key("PRODUCT#b"))), refused(Some("b")));
        assert_eq!(scope.check_map(Some(&key("ORDER#a"))), refused(None));
        let no_tenant_key = HashMap::from([("sk".to_owned(), AttributeValue::S("x".into()))]);
        assert_eq!(scope.check_map(Some(&no_tenant_key)), refused(None));
        assert_eq!(scope.check_map(None), refused(None));
    }

    #[test]
    fn queries_are_checked_on_their_partition_and_start_key() {
        let scope = scope();
        assert_eq!(scope.check_query(&query("PRODUCT#a", None)), Ok(()));
        assert_eq!(
            scope.check_query(&query("PRODUCT#b", None)),
            refused(Some("b"))
        );
        let foreign_start = Some(key("PRODUCT#b"));
        assert_eq!(
            scope.check_query(&query("PRODUCT#a", foreign_start)),
            refused(Some("b"))
        );
        assert_eq!(
            scope.check_query(&query("PRODUCT#a", Some(key("PRODUCT#a")))),
            Ok(())
        );
    }

    #[test]
    fn a_reader_that_reads_another_tenant_wins_over_one_that_reads_ours() {
        let scope = scope();
        fn other(attribute: &str, _: &str) -> KeyTenant {
            match attribute {
                "pk" => KeyTenant::Tenant("b".into()),
                _ => KeyTenant::NotTenantKey,
            }
        }
        scope.readers.write().unwrap().push((
            TypeId::of::<u8>(),
            (
                &entity_core::__private::MODEL_DEFAULTS,
                other as KeyTenantReader,
            ),
        ));
        assert_eq!(scope.check_map(Some(&key("PRODUCT#a"))), refused(Some("b")));
    }

    #[test]
    fn refusals_are_found_through_source_chains() {
        #[derive(Debug)]
        struct Outer(Refusal);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("outer")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refusal = Refusal {
            expected: "a".into(),
            found: None,
        };
        assert_eq!(Refusal::find(&Outer(refusal.clone())), Some(&refusal));
    }
}
