//! What `#[derive(Entity)]` declares about managed fields and unique
//! constraints: `MODEL.managed`, `unique_values()`, the `by_*` lookups, the
//! field roles that keep them out of updates, and the marker traits.

use chrono::{DateTime, TimeZone, Utc};
use entity_core::managed::{GeneratedModel, IdKind, ManagedModel, UniqueModel};
use entity_core::{
    Entity, EpochMillis, EpochSeconds, WithoutSoftDelete, WithoutUnique, WithoutVersion,
};
use std::time::{Duration, UNIX_EPOCH};

#[derive(Entity, Debug, Clone)]
#[entity(
    schema = "shop",
    rename_all = "camelCase",
    unique(email, case_insensitive),
    // Named constraints: two sharing a field, which clippy's
    // `duplicated_attributes` would read as one attribute given twice.
    unique(handle(tenant_id, handle), tenant_id_phone(tenant_id, phone))
)]
#[pk(customer_id)]
#[sk()]
#[index(by_signup(gsi = "gsi1", pk(tenant_id), sk(created_at)))]
struct Customer {
    #[entity(generate = "ulid")]
    customer_id: String,
    tenant_id: String,
    email: String,
    handle: String,
    phone: Option<String>,
    #[entity(generate = "uuid", rename = "ref")]
    reference: String,
    #[entity(version)]
    revision: u64,
    #[entity(created_at)]
    created_at: DateTime<Utc>,
    #[entity(updated_at)]
    updated_at: Option<EpochMillis>,
    note: Option<String>,
}

/// No managed fields at all.
#[derive(Entity, Debug)]
#[entity(schema = "shop")]
#[pk(id)]
struct Plain {
    id: String,
}

/// A case-insensitive constraint over a string and a non-string.
#[derive(Entity, Debug)]
#[entity(schema = "shop", unique(code, year, case_insensitive))]
#[pk(id)]
struct Coupon {
    id: String,
    code: String,
    year: u16,
    #[entity(created_at)]
    at: EpochSeconds,
}

fn ada() -> Customer {
    Customer {
        customer_id: "c-1".into(),
        tenant_id: "Acme".into(),
        email: "Ada@Example.COM".into(),
        handle: "Ada#1".into(),
        phone: Some("+44 20".into()),
        reference: String::new(),
        revision: 3,
        created_at: Utc.timestamp_opt(1_700_000_000, 0).unwrap(),
        updated_at: None,
        note: None,
    }
}

#[test]
fn the_model_lists_every_managed_field() {
    let managed = &Customer::MODEL.managed;
    let created = managed.created_at.expect("created_at");
    assert_eq!(
        (created.field, created.attribute),
        ("created_at", "createdAt")
    );
    let updated = managed.updated_at.expect("updated_at");
    assert_eq!(
        (updated.field, updated.attribute),
        ("updated_at", "updatedAt")
    );
    assert_eq!(managed.version, Some("revision"));
    assert_eq!(
        managed.generated,
        &[
            GeneratedModel {
                field: "customer_id",
                attribute: "customerId",
                kind: IdKind::Ulid,
            },
            GeneratedModel {
                field: "reference",
                attribute: "ref",
                kind: IdKind::Uuid,
            },
        ]
    );
    assert_eq!(
        managed.unique,
        &[
            UniqueModel {
                name: "email",
                fields: &["email"],
                attributes: &["email"],
                case_insensitive: true,
            },
            UniqueModel {
                name: "handle",
                fields: &["tenant_id", "handle"],
                attributes: &["tenantId", "handle"],
                case_insensitive: false,
            },
            UniqueModel {
                name: "tenant_id_phone",
                fields: &["tenant_id", "phone"],
                attributes: &["tenantId", "phone"],
                case_insensitive: false,
            },
        ]
    );
    assert!(!managed.is_empty());
    assert_eq!(Plain::MODEL.managed, ManagedModel::NONE);
    assert!(Plain::MODEL.managed.is_empty());
}

#[test]
fn timestamp_models_write_the_field_type() {
    let now = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    let managed = &Customer::MODEL.managed;
    let created = managed.created_at.unwrap().value(now);
    assert_eq!(
        created.as_s().map(String::as_str),
        Ok("2023-11-14T22:13:20.123000000Z")
    );
    let updated = managed.updated_at.unwrap().value(now);
    assert_eq!(updated.as_n().map(String::as_str), Ok("1700000000123"));
    let at = Coupon::MODEL.managed.created_at.unwrap().value(now);
    assert_eq!(at.as_n().map(String::as_str), Ok("1700000000"));
    // The model compares fields, not conversions.
    assert_eq!(managed.created_at, managed.created_at);
}

#[test]
fn unique_values_compose_key_text_in_constraint_order() {
    let values = ada().unique_values();
    assert_eq!(
        values,
        vec![
            // Case-insensitive: folded.
            Some("ada@example.com".to_owned()),
            // `#` in a value is escaped, so the joined text is unambiguous.
            Some("Acme#Ada%231".to_owned()),
            Some("Acme#+44%2020".to_owned()),
        ]
    );
}

#[test]
fn an_optional_field_that_is_none_has_no_value() {
    let mut c = ada();
    c.phone = None;
    assert_eq!(c.unique_values()[2], None);
    assert!(c.unique_values()[0].is_some());
}

#[test]
fn lookups_compose_what_unique_values_compose() {
    let c = ada();
    let values = c.unique_values();
    let by_email = Customer::by_email(&c.email);
    assert_eq!(Some(by_email.value().to_owned()), values[0]);
    assert_eq!(by_email.constraint().name, "email");
    // `&str` for a `String`, case folded like the stored value.
    assert_eq!(
        Customer::by_email("ADA@example.com").value(),
        "ada@example.com"
    );
    let by_handle = Customer::by_handle("Acme", "Ada#1");
    assert_eq!(Some(by_handle.value().to_owned()), values[1]);
    assert_eq!(by_handle.constraint().fields, &["tenant_id", "handle"]);
    // An `Option<String>` field's lookup takes the value itself.
    let by_phone = Customer::by_tenant_id_phone("Acme", "+44 20");
    assert_eq!(Some(by_phone.value().to_owned()), values[2]);
    assert_eq!(
        format!("{by_phone:?}"),
        r#"UniqueKey { entity: "Customer", constraint: "tenant_id_phone", value: "Acme#+44%2020" }"#
    );
}

#[test]
fn case_folding_lowercases_strings_only() {
    let coupon = Coupon {
        id: "k".into(),
        code: "SUMMER".into(),
        year: 2024,
        at: EpochSeconds(0),
    };
    assert_eq!(
        coupon.unique_values(),
        vec![Some("summer#02024".to_owned())]
    );
    assert_eq!(
        Coupon::by_code_year("Summer", 2024u16).value(),
        "summer#02024"
    );
    // Escapes keep their hex digits (`%2F` is not `%2f`), and non-ASCII
    // letters fold too.
    assert_eq!(
        Coupon::by_code_year("ÉTÉ #1", 1u16).value(),
        "été%20%231#00001"
    );
}

#[test]
fn entities_without_managed_fields_have_no_unique_values() {
    assert!(Plain { id: "p".into() }.unique_values().is_empty());
}

fn without_unique<E: WithoutUnique>() {}
fn without_version<E: WithoutVersion>() {}
fn without_soft_delete<E: WithoutSoftDelete>() {}

#[test]
fn markers_follow_what_the_entity_declares() {
    without_unique::<Plain>();
    without_version::<Plain>();
    without_soft_delete::<Plain>();
    // A constraint, no version.
    without_version::<Coupon>();
}

#[test]
fn group_setters_guard_on_fixed_fields() {
    // `created_at` is a composite of `by_signup` with `tenant_id`; both are
    // fixed (managed, unique), so they form no group and have no setter: the
    // fields have the roles that `Update::set` refuses (see tests/ui/managed).
    let f = Customer::fields();
    let _: entity_core::expr::Attr<Customer, DateTime<Utc>, entity_core::expr::Managed> =
        f.created_at;
    let _: entity_core::expr::Attr<Customer, Option<EpochMillis>, entity_core::expr::Managed> =
        f.updated_at;
    let _: entity_core::expr::Attr<Customer, u64, entity_core::expr::Managed> = f.revision;
    let _: entity_core::expr::Attr<Customer, String, entity_core::expr::UniqueField> = f.email;
    let _: entity_core::expr::Attr<Customer, String, entity_core::expr::UniqueField> = f.tenant_id;
    let _: entity_core::expr::Attr<Customer, String, entity_core::expr::TableKeyComposite> =
        f.customer_id;
    let _: entity_core::expr::Attr<Customer, Option<String>, entity_core::expr::Plain> = f.note;
    let _: entity_core::expr::Attr<Customer, String, entity_core::expr::Plain> = f.reference;
}
