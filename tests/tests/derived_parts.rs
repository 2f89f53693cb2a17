//! Derived key parts: `{created_at:month}` writes a bucket of a timestamp
//! (year, month, day, hour) in place of the instant. Composed on write and
//! from the accessors' instants, parsed back as the bucket's text, compared
//! as buckets by range operators.

use chrono::{DateTime, Utc};
use entity_client::{Entity, Query};
use entity_tests::harness::table;

/// Events by id, and by tenant and month, ordered by day.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "EVENT#{id}")]
#[sk(format = "EVENT")]
#[index(by_month(
    gsi = "gsi1",
    pk(format = "LOG#{tenant}#{created_at:month}"),
    sk(format = "{created_at:day}#{id}")
))]
struct Event {
    id: String,
    tenant: String,
    created_at: DateTime<Utc>,
}

/// `time` timestamps bucket the same way: by year, then by hour.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "YEAR#{at:year}")]
#[sk(format = "{at:hour}#{n}")]
struct Reading {
    at: time::OffsetDateTime,
    n: u32,
}

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn event(id: &str, at: &str) -> Event {
    Event {
        id: id.into(),
        tenant: "t1".into(),
        created_at: utc(at),
    }
}

#[test]
fn buckets_are_composed_from_the_instant() {
    let e = event("e1", "2024-01-15T10:30:00Z");
    assert_eq!(e.by_month_pk(), "LOG#t1#2024-01");
    assert_eq!(e.by_month_sk(), "2024-01-15#e1");
    let item = e.to_item().unwrap();
    assert_eq!(item["gsi1pk"].as_s().unwrap(), "LOG#t1#2024-01");
    assert_eq!(item["gsi1sk"].as_s().unwrap(), "2024-01-15#e1");
    // Written in UTC, whatever the offset of the instant given.
    let tokyo = chrono::FixedOffset::east_opt(9 * 3600).unwrap();
    let local = utc("2024-01-31T20:00:00Z").with_timezone(&tokyo);
    assert_eq!(
        Event::by_month_pk_of("t1", local.with_timezone(&Utc)),
        "LOG#t1#2024-01"
    );

    let r = Reading {
        // 2024-01-15T10:30:00Z
        at: time::OffsetDateTime::from_unix_timestamp(1_705_314_600).unwrap(),
        n: 7,
    };
    assert_eq!(
        (r.pk(), r.sk()),
        ("YEAR#2024".into(), "2024-01-15T10#0000000007".into())
    );
}

#[test]
fn parsers_give_back_the_bucket_text() {
    assert_eq!(
        Event::parse_by_month_pk("LOG#t1#2024-01").unwrap(),
        ("t1".to_owned(), "2024-01".to_owned())
    );
    assert_eq!(
        Event::parse_by_month_sk("2024-01-15#e1").unwrap(),
        ("2024-01-15".to_owned(), "e1".to_owned())
    );
    assert_eq!(
        Reading::parse_sk("2024-01-15T10#0000000007").unwrap(),
        ("2024-01-15T10".to_owned(), 7)
    );
    assert!(Event::is_by_month_pk("LOG#t1#2024-12"));
    for bad in [
        "LOG#t1#2024-13",
        "LOG#t1#2024-1",
        "LOG#t1#2024-01-15",
        "LOG#t1#2024",
    ] {
        assert!(!Event::is_by_month_pk(bad), "{bad}");
    }
    assert!(!Reading::is_sk("2024-01-15T24#0000000007"));
    assert!(!Reading::is_pk("YEAR#2024-01"));
}

/// A bucket parses only if its timestamp type can be in it: exactly the
/// buckets the type's instants are written as. `time`'s `OffsetDateTime`
/// holds years -9999 to 9999; chrono's `DateTime<Utc>` holds wider ones,
/// written in ISO-8601's expanded form.
#[test]
fn parsers_take_only_buckets_of_years_the_timestamp_type_holds() {
    assert!(Reading::is_pk("YEAR#9999"));
    assert!(Reading::is_pk("YEAR#-9999"));
    for bad in ["YEAR#+10000", "YEAR#-10000", "YEAR#+2147483647"] {
        assert!(!Reading::is_pk(bad), "{bad}");
        assert!(Reading::parse_pk(bad).is_err(), "{bad}");
    }
    assert!(!Reading::is_sk("+10000-01-01T00#0000000007"));

    let far = chrono::NaiveDate::from_ymd_opt(10_000, 2, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap()
        .and_utc();
    let pk = Event::by_month_pk_of("t1", far);
    assert_eq!(pk, "LOG#t1#+10000-02");
    assert!(Event::is_by_month_pk(&pk), "chrono holds year 10000");
    assert!(!Event::is_by_month_pk("LOG#t1#+262143-01"));
    assert!(!Event::is_by_month_pk("LOG#t1#+2147483647-01"));
}

#[test]
fn ranges_compare_buckets() {
    let q: Query<Event> = Event::by_month("t1", utc("2024-01-20T00:00:00Z"))
        .created_at()
        .gte(utc("2024-01-15T23:59:59Z"));
    assert_eq!(q.partition_key(), ("gsi1pk", "LOG#t1#2024-01"));
    // The bound is the 15th, not the instant: the whole day is in range.
    let (attribute, condition) = q.sort_condition().unwrap();
    assert_eq!(attribute, "gsi1sk");
    assert!(condition.matches("2024-01-15#a"));
    assert!(condition.matches("2024-01-31#z"));
    assert!(!condition.matches("2024-01-14#z"));
    let values = format!("{:?}", q.expression_attribute_values());
    assert!(!values.contains("23:59"), "{values}");
}

#[tokio::test]
async fn query_by_month() {
    let t = table(&[Event::MODEL]).await;
    let client = &t.client;
    for (id, at) in [
        ("e1", "2024-01-14T23:59:59Z"),
        ("e2", "2024-01-15T00:00:00Z"),
        ("e3", "2024-01-31T23:00:00Z"),
        ("e4", "2024-02-01T00:00:00Z"),
    ] {
        client.put(&event(id, at)).await.unwrap();
    }
    let ids = |events: Vec<Event>| events.into_iter().map(|e| e.id).collect::<Vec<_>>();
    // Any instant of the month names its partition.
    let january = client
        .query(Event::by_month("t1", utc("2024-01-02T03:04:05Z")))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(january), ["e1", "e2", "e3"]);
    // A range on a derived part compares days: all of the 15th is in.
    let from_15th = client
        .query(
            Event::by_month("t1", utc("2024-01-01T00:00:00Z"))
                .created_at()
                .gte(utc("2024-01-15T12:00:00Z")),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(ids(from_15th), ["e2", "e3"]);
    let one_day = client
        .query(
            Event::by_month("t1", utc("2024-01-01T00:00:00Z"))
                .created_at()
                .eq(utc("2024-01-31T00:00:00Z"))
                .build(),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(ids(one_day), ["e3"]);
    let february = client
        .query(Event::by_month("t1", utc("2024-02-29T00:00:00Z")))
        .all()
        .await
        .unwrap();
    assert_eq!(ids(february), ["e4"]);
}
