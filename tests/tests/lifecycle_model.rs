//! What `#[derive(Entity)]` declares about the lifecycle of items:
//! `MODEL.lifecycle` (ttl, soft delete, history), the TTL field stored as
//! epoch seconds whatever its type, and the roles of lifecycle fields.

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, TimeZone, Utc};
use entity_core::lifecycle::{
    HistoryModel, LifecycleModel, SoftDeleteModel, TtlModel, DELETED_AT_ATTRIBUTE,
};
use entity_core::{DecodeError, Entity, EpochMillis, EpochSeconds};
use std::time::{Duration, UNIX_EPOCH};

/// Every lifecycle declaration, with a `deleted_at` field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "app",
    rename_all = "camelCase",
    soft_delete(keep_unique, expire_after = "30d"),
    history(keep = 10, separator = "~", expire_after = "90d")
)]
#[pk(id)]
#[sk()]
struct Document {
    id: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<DateTime<Utc>>,
    #[entity(deleted_at)]
    removed_at: Option<DateTime<Utc>>,
}

/// A sliding TTL of another type, the defaults of `soft_delete` and
/// `history`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", soft_delete, history)]
#[pk(id)]
#[sk()]
struct Session {
    id: String,
    #[entity(version)]
    version: u32,
    #[entity(ttl(after = "15m"), rename = "ttl")]
    expires: time::OffsetDateTime,
}

/// A required TTL of epoch seconds.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app")]
#[pk(id)]
struct Token {
    id: String,
    #[entity(ttl(after = "2h"))]
    expires_at: EpochSeconds,
}

/// No lifecycle declarations.
#[derive(Entity, Debug)]
#[entity(schema = "app")]
#[pk(id)]
struct Plain {
    id: String,
}

#[test]
fn the_model_describes_every_declaration() {
    let lifecycle = Document::MODEL.lifecycle;
    assert_eq!(
        lifecycle.ttl,
        Some(TtlModel {
            field: "expires_at",
            attribute: "expiresAt",
            after: None,
        })
    );
    let soft = lifecycle.soft_delete.expect("soft_delete");
    assert_eq!((soft.attribute, soft.keep_unique), ("removedAt", true));
    assert_eq!(soft.expire_after, Some(30 * 86_400));
    assert_eq!(
        lifecycle.history,
        Some(HistoryModel {
            separator: "~",
            keep: Some(10),
            expire_after: Some(90 * 86_400),
        })
    );
}

#[test]
fn defaults() {
    let lifecycle = Session::MODEL.lifecycle;
    assert_eq!(
        lifecycle.ttl,
        Some(TtlModel {
            field: "expires",
            attribute: "ttl",
            after: Some(15 * 60),
        })
    );
    let soft: SoftDeleteModel = lifecycle.soft_delete.expect("soft_delete");
    assert_eq!(soft.attribute, DELETED_AT_ATTRIBUTE);
    assert_eq!((soft.keep_unique, soft.expire_after), (false, None));
    assert_eq!(
        lifecycle.history,
        Some(HistoryModel {
            separator: "@",
            keep: None,
            expire_after: None,
        })
    );
    assert_eq!(
        Token::MODEL.lifecycle.ttl.map(|t| t.after),
        Some(Some(7_200))
    );
    assert_eq!(Plain::MODEL.lifecycle, LifecycleModel::NONE);
}

/// The derive's default attribute is the runtime's.
#[test]
fn the_default_deleted_at_attribute_is_the_runtimes() {
    assert_eq!(DELETED_AT_ATTRIBUTE, "__deleted_at");
}

/// The deletion time is written in the `deleted_at` field's type, or epoch
/// milliseconds in the default attribute.
#[test]
fn deletion_times_follow_the_attribute_type() {
    let now = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    let at = Document::MODEL.lifecycle.soft_delete.unwrap().at;
    let expected = Utc.timestamp_millis_opt(1_700_000_000_123).unwrap();
    assert_eq!(
        at(now),
        entity_core::ToAttribute::to_attribute(&expected)
            .unwrap()
            .unwrap()
    );
    let at = Session::MODEL.lifecycle.soft_delete.unwrap().at;
    assert_eq!(at(now), AttributeValue::N("1700000000123".into()));
    assert_eq!(
        at(now),
        entity_core::ToAttribute::to_attribute(&EpochMillis(1_700_000_000_123))
            .unwrap()
            .unwrap()
    );
}

#[test]
fn a_ttl_is_stored_as_epoch_seconds_whatever_its_type() {
    let at = Utc.timestamp_opt(1_700_000_000, 0).unwrap();
    let doc = Document {
        id: "d".into(),
        version: 1,
        expires_at: Some(at),
        removed_at: None,
    };
    let item = doc.to_item().unwrap();
    assert_eq!(item["expiresAt"], AttributeValue::N("1700000000".into()));
    assert!(!item.contains_key("removedAt"));
    assert_eq!(Document::from_item(item).unwrap(), doc);

    let session = Session {
        id: "s".into(),
        version: 1,
        expires: time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap(),
    };
    let item = session.to_item().unwrap();
    assert_eq!(item["ttl"], AttributeValue::N("1700000000".into()));
    assert_eq!(Session::from_item(item).unwrap(), session);

    let token = Token {
        id: "t".into(),
        expires_at: EpochSeconds(42),
    };
    let item = token.to_item().unwrap();
    assert_eq!(item["expires_at"], AttributeValue::N("42".into()));
    assert_eq!(Token::from_item(item).unwrap(), token);
}

#[test]
fn no_ttl_is_no_attribute() {
    let doc = Document {
        id: "d".into(),
        version: 1,
        expires_at: None,
        removed_at: None,
    };
    let item = doc.to_item().unwrap();
    assert!(!item.contains_key("expiresAt"));
    assert_eq!(Document::from_item(item.clone()).unwrap(), doc);
    let mut with_null = item;
    with_null.insert("expiresAt".into(), AttributeValue::Null(true));
    assert_eq!(Document::from_item(with_null).unwrap(), doc);
}

#[test]
fn a_ttl_that_does_not_decode_names_its_attribute() {
    let token = Token {
        id: "t".into(),
        expires_at: EpochSeconds(42),
    };
    let stored = token.to_item().unwrap();
    let bad = [
        AttributeValue::S("1700000000".into()),
        AttributeValue::N("1.5".into()),
        AttributeValue::N("99999999999999999999".into()),
    ];
    for value in bad {
        let mut item = stored.clone();
        item.insert("expires_at".into(), value.clone());
        let error = Token::from_item(item).unwrap_err();
        assert!(
            matches!(
                error,
                DecodeError::Attribute {
                    attribute: "expires_at",
                    ..
                }
            ),
            "{value:?}: {error:?}"
        );
    }
    let mut missing = stored;
    missing.remove("expires_at");
    assert!(matches!(
        Token::from_item(missing),
        Err(DecodeError::Attribute {
            attribute: "expires_at",
            ..
        })
    ));

    // A value the type cannot hold (past chrono's range).
    let doc = Document {
        id: "d".into(),
        version: 1,
        expires_at: None,
        removed_at: None,
    };
    let mut item = doc.to_item().unwrap();
    item.insert("expiresAt".into(), AttributeValue::N(i64::MAX.to_string()));
    assert!(matches!(
        Document::from_item(item),
        Err(DecodeError::Attribute {
            attribute: "expiresAt",
            ..
        })
    ));
}

/// A TTL field's handle compares and writes epoch seconds, what the
/// attribute holds.
#[test]
fn a_ttl_handle_holds_epoch_seconds() {
    let handle: entity_core::expr::Attr<Document, Option<EpochSeconds>> =
        Document::fields().expires_at;
    assert_eq!(handle.name(), "expiresAt");
    let sliding: entity_core::expr::Attr<Token, EpochSeconds, entity_core::expr::Managed> =
        Token::fields().expires_at;
    assert_eq!(sliding.name(), "expires_at");
    let deleted: entity_core::expr::Attr<
        Document,
        Option<DateTime<Utc>>,
        entity_core::expr::Managed,
    > = Document::fields().removed_at;
    assert_eq!(deleted.name(), "removedAt");
}
