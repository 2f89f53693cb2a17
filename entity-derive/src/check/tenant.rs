//! Rules for `#[entity(tenant = tenant_id)]`. A tenant client reads and
//! writes only partitions of its tenant, so every partition key the entity
//! writes must hold the tenant: a key without it would let one tenant's
//! request reach another's items.

use crate::ctxt::Ctxt;
use crate::model::{Entity, IndexKind, Key};

pub fn check(cx: &Ctxt, entity: &Entity) {
    let Some(tenant) = &entity.tenant else {
        return;
    };
    let field = &entity.fields[tenant.field];
    let name = field.ident;
    // A tenant is text (`t-001`, `common`), as seed 004's tenant codes are;
    // it is composed into keys and compared with the client's tenant.
    if crate::model::type_name(field.ty).as_deref() != Some("String") {
        let ty = field.ty;
        let ty = quote::quote!(#ty).to_string().replace(' ', "");
        cx.error_at(
            tenant.token,
            format!("the tenant field `{name}` is a `{ty}`; a tenant is a `String` (such as `\"t-001\"` or `Tenant::COMMON`): change the field's type"),
        );
    }
    if !holds(&entity.primary.pk, tenant.field) {
        cx.error_at(tenant.token, format!(
            "the tenant field `{name}` is not a composite of the table's partition key (`{}` = {}): put it in, such as `#[pk({name}, ...)]` or `#[pk(format = \"PRODUCT#{{{name}}}\")]`, so each tenant's items live in its own partitions",
            entity.primary.pk.attribute, entity.primary.pk.template(&entity.fields)
        ));
    }
    every_index_partition_holds_the_tenant(cx, entity, tenant.field);
    no_folded_tenant(cx, entity, tenant.field);
    no_tenant_in_unique_constraints(cx, entity, tenant.field);
}

fn holds(key: &Key, field: usize) -> bool {
    key.composites.iter().any(|c| c.field == field)
}

/// A global index's partition is its own: without the tenant, a query of
/// it would read every tenant's items. (A local index shares the table's
/// partition key.)
fn every_index_partition_holds_the_tenant(cx: &Ctxt, entity: &Entity, field: usize) {
    let name = entity.fields[field].ident;
    for index in entity
        .indexes
        .iter()
        .filter(|i| i.kind == IndexKind::Global)
    {
        let held = match &index.multi_attribute {
            Some(multi) => multi.pk.iter().any(|a| a.field == field),
            None => holds(&index.pk, field),
        };
        if !held {
            cx.error_at(index.pk.span, format!(
                "index `{}` has no tenant in its partition key, so a query of it would read every tenant's items: add the tenant field, such as `pk({name}, ...)`",
                index.name
            ));
        }
    }
}

/// A folded key holds the tenant case-folded, which a tenant client could
/// not tell from another tenant's.
fn no_folded_tenant(cx: &Ctxt, entity: &Entity, field: usize) {
    let indexes = std::iter::once(&entity.primary).chain(&entity.indexes);
    for (_, key) in indexes.flat_map(|i| i.keys()) {
        if let (Some((_, span)), true) = (key.value_casing, holds(key, field)) {
            cx.error_at(span, "`value_casing` would fold the tenant in this key, and tenants that differ in case would share partitions; remove it from keys that hold the tenant");
        }
    }
}

/// A tenant entity's unique values are unique within its tenant: the
/// client composes the tenant into each value (and its sentinel's key, so
/// the tenant client's request check reads it), so naming the tenant field
/// in a constraint would only repeat it.
fn no_tenant_in_unique_constraints(cx: &Ctxt, entity: &Entity, field: usize) {
    let name = entity.fields[field].ident;
    for unique in &entity.unique {
        if let Some(named) = unique.fields.iter().find(|f| f.field == field) {
            cx.error_at(named.token, format!(
                "a tenant entity's unique values are already unique within their tenant: remove the tenant field `{name}` from `unique(...)`"
            ));
        }
    }
}
