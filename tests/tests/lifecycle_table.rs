//! The table side of TTL: `create_table` enables DynamoDB's TTL on the
//! attribute the entities' `#[entity(ttl)]` field uses, refuses entities
//! that keep their TTL in different attributes, and a TTL field of any
//! type is stored as a number of epoch seconds.

use aws_sdk_dynamodb::types::{AttributeValue, TimeToLiveStatus};
use chrono::{DateTime, TimeZone, Utc};
use entity_client::{Entity, Error, ValidationError};
use entity_tests::harness::{table, table_name};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[sk()]
struct Session {
    id: String,
    #[entity(ttl, rename = "expiresAt")]
    expires_at: Option<DateTime<Utc>>,
}

/// Another entity of the same table, TTL in the same attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[sk()]
struct Token {
    id: String,
    #[entity(ttl(after = "1h"), rename = "expiresAt")]
    expires_at: entity_client::EpochSeconds,
}

/// TTL in another attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[sk()]
struct Lease {
    id: String,
    #[entity(ttl)]
    until: entity_client::EpochSeconds,
}

/// No TTL at all.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test")]
#[pk(id)]
#[sk()]
struct Note {
    id: String,
}

async fn ttl_of(client: &entity_client::Client) -> (Option<String>, Option<TimeToLiveStatus>) {
    let output = client
        .sdk()
        .describe_time_to_live()
        .table_name(client.table())
        .send()
        .await
        .unwrap();
    let description = output.time_to_live_description().cloned();
    (
        description
            .as_ref()
            .and_then(|d| d.attribute_name().map(str::to_owned)),
        description.and_then(|d| d.time_to_live_status().cloned()),
    )
}

fn is_on(status: &Option<TimeToLiveStatus>) -> bool {
    matches!(
        status,
        Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
    )
}

#[tokio::test]
async fn create_table_enables_ttl_on_the_entities_attribute() {
    let t = table(&[Note::MODEL, Session::MODEL, Token::MODEL]).await;
    let (attribute, status) = ttl_of(&t.client).await;
    assert_eq!(attribute.as_deref(), Some("expiresAt"));
    assert!(is_on(&status), "{status:?}");

    // Creating it again (`if_not_exists`) keeps the setting.
    t.client
        .create_table(&[Session::MODEL])
        .if_not_exists()
        .await
        .unwrap();
    let (attribute, status) = ttl_of(&t.client).await;
    assert_eq!(attribute.as_deref(), Some("expiresAt"));
    assert!(is_on(&status), "{status:?}");
}

#[tokio::test]
async fn a_table_without_ttl_fields_has_no_ttl() {
    let t = table(&[Note::MODEL]).await;
    let (_, status) = ttl_of(&t.client).await;
    assert!(!is_on(&status), "{status:?}");
}

#[tokio::test]
async fn two_ttl_attributes_on_one_table_are_refused_before_sending() {
    let t = table(&[Note::MODEL]).await;
    let client = t.client.with_table(table_name("ttl-clash"));
    let error = client
        .create_table(&[Session::MODEL, Lease::MODEL])
        .await
        .unwrap_err();
    match &error {
        Error::Validation(ValidationError::TableDesign(message)) => {
            assert!(
                message.contains("expiresAt") && message.contains("until"),
                "{message}"
            );
        }
        other => panic!("expected a table design error, got {other:?}"),
    }
    // Nothing was created.
    let described = client
        .sdk()
        .describe_table()
        .table_name(client.table())
        .send()
        .await;
    assert!(described.is_err());
}

#[tokio::test]
async fn a_datetime_ttl_is_stored_as_epoch_seconds_and_read_back() {
    let t = table(&[Session::MODEL]).await;
    let at = Utc.timestamp_opt(4_000_000_000, 0).unwrap();
    let session = Session {
        id: "s1".into(),
        expires_at: Some(at),
    };
    t.client.put(&session).await.unwrap();

    let raw = t
        .client
        .sdk()
        .get_item()
        .table_name(t.client.table())
        .set_key(Some(session.primary_key().to_item()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(raw["expiresAt"], AttributeValue::N("4000000000".into()));
    assert_eq!(
        t.client.get(Session::key("s1")).await.unwrap(),
        Some(session)
    );

    let forever = Session {
        id: "s2".into(),
        expires_at: None,
    };
    t.client.put(&forever).await.unwrap();
    assert_eq!(
        t.client.get(Session::key("s2")).await.unwrap(),
        Some(forever)
    );
}
