//! Every key pattern of seeds 000 (Turbine), 001 and 003 (ddb-lib) and 004
//! (mbc-cqrs-serverless) that the format language expresses, with the exact
//! stored keys of the seed documents, and its access pattern run on the
//! embedded server.

use chrono::{DateTime, Utc};
use entity_client::{Client, Entity, Item};
use entity_tests::harness::table;

// ---- Seed 000: Turbine ------------------------------------------------

/// `pk: ["user", id]`, `sk: "profile"`, `type: "user"`, unique lookups by
/// email and username.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "user#{id}")]
#[sk(format = "profile")]
#[index(by_type(gsi = "byType", pk(attr = "type", format = "user")))]
#[index(by_email(gsi = "gsi1", pk(format = "user#email"), sk(format = "{email}")))]
#[index(by_username(gsi = "gsi2", pk(format = "user#username"), sk(format = "{username}")))]
struct TurbineUser {
    id: String,
    email: String,
    username: String,
}

/// `pk: ["user", authorId]`, `sk: ["post", createdAt, id]`, a global feed,
/// a lookup by id and posts by status.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "user#{author_id}")]
#[sk(format = "post#{created_at}#{id}")]
#[index(feed(
    gsi = "feed",
    pk(attr = "gsi1pk", format = "post#feed"),
    sk(attr = "gsi1sk", format = "{created_at}#{id}")
))]
#[index(post_by_id(
    gsi = "postById",
    pk(attr = "gsi2pk", format = "post#id"),
    sk(attr = "gsi2sk", format = "{id}")
))]
#[index(by_status(
    gsi = "byStatus",
    pk(attr = "gsi3pk", format = "post#status#{status}"),
    sk(attr = "gsi3sk", format = "{created_at}#{id}")
))]
struct TurbinePost {
    author_id: String,
    created_at: String,
    id: String,
    status: String,
}

/// Organization > team > member: `sk: ["team", teamId, "member", userId]`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "org#{org_id}")]
#[sk(format = "team#{team_id}#member#{user_id}")]
struct TurbineMember {
    org_id: String,
    team_id: String,
    user_id: String,
}

/// A number key (`pk: 123`): stored as a DynamoDB number.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(user_id, number)]
#[sk(seq, number)]
struct Reading {
    user_id: u64,
    seq: i32,
    value: String,
}

// ---- Seed 001: ddb-lib entity keys --------------------------------------

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "USER#{user_id}")]
struct LibUser {
    user_id: String,
    name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "PROFILE")]
struct LibProfile {
    user_id: String,
    bio: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#{order_id}")]
#[index(inverted(
    gsi = "inverted",
    pk(attr = "gsi1pk", format = "ORDER#{order_id}"),
    sk(attr = "gsi1sk", format = "USER#{user_id}")
))]
struct LibOrder {
    user_id: String,
    order_id: String,
    total: f64,
}

// ---- Seed 003: ddb-lib key design ---------------------------------------

/// `sk: ORDER#<timestamp>#<orderId>`, `gsi1pk: STATUS#<status>`,
/// `gsi1sk: ORDER#<date>#<orderId>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#{placed_at}#{order_id}")]
#[index(by_status(
    gsi = "gsi1",
    pk(format = "STATUS#{status}"),
    sk(format = "ORDER#{placed_at}#{order_id}")
))]
struct TimedOrder {
    user_id: String,
    placed_at: String,
    order_id: String,
    status: String,
}

/// Write sharding: `STATUS#ACTIVE#SHARD#7`, shards queried one by one.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "STATUS#ACTIVE#SHARD#{shard:unpadded}")]
#[sk(format = "USER#{user_id}")]
struct ShardedUser {
    shard: u8,
    user_id: String,
}

/// Time-series: `sk: METRIC#<Date.now()>#<metricId>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "SENSOR#{sensor_id}")]
#[sk(format = "METRIC#{at_ms:unpadded}#{metric_id}")]
struct Metric {
    sensor_id: String,
    at_ms: u64,
    metric_id: String,
}

/// Multi-attribute keys: `US#CA#SF`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "{country}#{state}#{city}")]
#[sk(format = "STORE#{store_id}")]
struct Store {
    country: String,
    state: String,
    city: String,
    store_id: String,
}

// ---- Seed 004: mbc-cqrs-serverless --------------------------------------

/// `PK: PRODUCT#<tenantCode>`, `SK: <ulid>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "PRODUCT#{tenant_code}")]
#[sk(format = "{id}")]
struct Product {
    tenant_code: String,
    id: String,
}

/// `SK: ORDER#<orderId>`, and its items `ORDER_ITEM#<orderId>#<itemId>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "ORDER#{tenant_code}")]
#[sk(format = "ORDER_ITEM#{order_id}#{item_id}")]
struct OrderItem {
    tenant_code: String,
    order_id: String,
    item_id: String,
}

/// The command table: every version, `SK: ORDER#<orderId>@<version>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "ORDER#{tenant_code}")]
#[sk(format = "ORDER#{order_id}@{version:unpadded}")]
struct OrderCommand {
    tenant_code: String,
    order_id: String,
    version: u32,
}

/// A plain versioned sort key, `SK: <ulid>@<version>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "PRODUCT#{tenant_code}")]
#[sk(format = "{id}@{version:unpadded}")]
struct ProductCommand {
    tenant_code: String,
    id: String,
    version: u32,
}

/// `PK: USER#<tenantCode>`, `SK: <provider>#<userId>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER#{tenant_code}")]
#[sk(format = "{provider}#{user_id}")]
struct AuthUser {
    tenant_code: String,
    provider: String,
    user_id: String,
}

/// `PK: USER_TENANT#common`, `SK: <tenantCode>#<userCode>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "USER_TENANT#common")]
#[sk(format = "{tenant_code}#{user_code}")]
struct UserTenant {
    tenant_code: String,
    user_code: String,
}

/// `PK: MASTER#<tenantCode>`, `SK: <type>#<category>#<code>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "MASTER#{tenant_code}")]
#[sk(format = "{kind}#{category}#{code}")]
struct Master {
    tenant_code: String,
    kind: String,
    category: String,
    code: String,
}

/// `PK: LOG#<tenantCode>#<year-month>`, `SK: <timestamp>#<eventId>`: the
/// month is a derived part of `at`, never stored as a field of its own. The
/// sort key holds our fixed-width timestamp text (nine fractional digits),
/// which sorts as the instants do.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "LOG#{tenant_code}#{at:month}")]
#[sk(format = "{at}#{event_id}")]
struct Log {
    tenant_code: String,
    at: DateTime<Utc>,
    event_id: String,
}

/// A UTC instant from RFC 3339 text.
fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// The stored keys of an item: `pk`, `sk` and every index key attribute.
fn keys(item: &Item, attributes: &[&str]) -> Vec<String> {
    attributes
        .iter()
        .map(|a| match item.get(*a) {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(s)) => s.clone(),
            Some(aws_sdk_dynamodb::types::AttributeValue::N(n)) => format!("N:{n}"),
            other => panic!("{a}: {other:?}"),
        })
        .collect()
}

async fn query_all<E: Entity + entity_client::NotTenant + Send + 'static>(
    client: &Client,
    query: impl Into<entity_client::Query<E>>,
) -> Vec<E> {
    client.query(query).all().await.unwrap()
}

#[test]
fn seed_000_stored_keys() {
    let u = TurbineUser {
        id: "123".into(),
        email: "alice@example.com".into(),
        username: "alice".into(),
    };
    let item = u.to_item().unwrap();
    assert_eq!(
        keys(
            &item,
            &["pk", "sk", "type", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"]
        ),
        [
            "user#123",
            "profile",
            "user",
            "user#email",
            "alice@example.com",
            "user#username",
            "alice"
        ]
    );
    let p = post("u1", "2024-01-15T10:30:00.000Z", "abc", "published");
    assert_eq!(
        keys(
            &p.to_item().unwrap(),
            &["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk"]
        ),
        [
            "user#u1",
            "post#2024-01-15T10:30:00.000Z#abc",
            "post#feed",
            "2024-01-15T10:30:00.000Z#abc",
            "post#id",
            "abc",
            "post#status#published",
            "2024-01-15T10:30:00.000Z#abc",
        ]
    );
    assert_eq!(
        TurbinePost::parse_sk("post#2024-01-15T10:30:00.000Z#abc").unwrap(),
        ("2024-01-15T10:30:00.000Z".to_owned(), "abc".to_owned())
    );
    let m = TurbineMember {
        org_id: "acme".into(),
        team_id: "eng".into(),
        user_id: "u1".into(),
    };
    assert_eq!(m.sk(), "team#eng#member#u1");
    let r = Reading {
        user_id: 123,
        seq: -7,
        value: "x".into(),
    };
    assert_eq!(
        keys(&r.to_item().unwrap(), &["pk", "sk"]),
        ["N:123", "N:-7"]
    );
    assert_eq!(Reading::parse_pk("123").unwrap(), (123,));
    assert!(Reading::parse_pk("0123").is_err());
    assert!(!Reading::is_pk("+1"));
}

fn post(author: &str, at: &str, id: &str, status: &str) -> TurbinePost {
    TurbinePost {
        author_id: author.into(),
        created_at: at.into(),
        id: id.into(),
        status: status.into(),
    }
}

#[tokio::test]
async fn seed_000_access_patterns() {
    let t = table(&[TurbineUser::MODEL, TurbinePost::MODEL, TurbineMember::MODEL]).await;
    let client = &t.client;
    let alice = TurbineUser {
        id: "123".into(),
        email: "alice@example.com".into(),
        username: "alice".into(),
    };
    client.put(&alice).await.unwrap();
    let p1 = post("123", "2024-01-15T10:30:00.000Z", "p1", "published");
    let p2 = post("123", "2024-02-01T08:00:00.000Z", "p2", "draft");
    let p3 = post("456", "2024-01-20T00:00:00.000Z", "p3", "published");
    for p in [&p1, &p2, &p3] {
        client.put(p).await.unwrap();
    }
    for (org, team, user) in [
        ("acme", "eng", "u1"),
        ("acme", "eng", "u2"),
        ("acme", "sales", "u3"),
    ] {
        let m = TurbineMember {
            org_id: org.into(),
            team_id: team.into(),
            user_id: user.into(),
        };
        client.put(&m).await.unwrap();
    }

    assert_eq!(
        client.get(TurbineUser::key("123")).await.unwrap(),
        Some(alice.clone())
    );
    assert_eq!(
        query_all(client, TurbineUser::by_type()).await,
        std::slice::from_ref(&alice)
    );
    assert_eq!(
        query_all(
            client,
            TurbineUser::by_email().email().eq("alice@example.com")
        )
        .await,
        std::slice::from_ref(&alice)
    );
    assert_eq!(
        query_all(client, TurbineUser::by_username().username().eq("alice")).await,
        [alice]
    );
    // A user's posts, newest first.
    assert_eq!(
        query_all(client, TurbinePost::primary("123").descending()).await,
        [p2.clone(), p1.clone()]
    );
    // The global feed, newest first, and a time range on it.
    assert_eq!(
        query_all(client, TurbinePost::feed().descending()).await,
        [p2.clone(), p3.clone(), p1.clone()]
    );
    assert_eq!(
        query_all(client, TurbinePost::feed().created_at().gte("2024-01-16")).await,
        [p3.clone(), p2.clone()]
    );
    assert_eq!(
        query_all(client, TurbinePost::post_by_id().id().eq("p3")).await,
        std::slice::from_ref(&p3)
    );
    assert_eq!(
        query_all(client, TurbinePost::by_status("published")).await,
        [p1, p3]
    );
    // Members of an org, of one team.
    assert_eq!(
        query_all(client, TurbineMember::primary("acme"))
            .await
            .len(),
        3
    );
    assert_eq!(
        query_all(client, TurbineMember::primary("acme").team_id().eq("eng"))
            .await
            .len(),
        2
    );
}

#[tokio::test]
async fn seed_000_number_keys() {
    let t = table(&[Reading::MODEL]).await;
    let client = &t.client;
    let reading = |seq: i32| Reading {
        user_id: 123,
        seq,
        value: format!("v{seq}"),
    };
    for seq in [-7, 2, 9, 10, 100] {
        client.put(&reading(seq)).await.unwrap();
    }
    // CreateTable declared both key attributes as numbers.
    let described = client
        .sdk()
        .describe_table()
        .table_name(client.table())
        .send()
        .await
        .unwrap();
    let types: Vec<String> = described
        .table
        .unwrap()
        .attribute_definitions
        .unwrap()
        .iter()
        .map(|d| format!("{}:{}", d.attribute_name, d.attribute_type.as_str()))
        .collect();
    assert!(
        types.contains(&"pk:N".to_owned()) && types.contains(&"sk:N".to_owned()),
        "{types:?}"
    );

    assert_eq!(
        client.get(Reading::key(123u64, 9)).await.unwrap(),
        Some(reading(9))
    );
    let seqs = |rs: Vec<Reading>| rs.into_iter().map(|r| r.seq).collect::<Vec<_>>();
    // Numeric order, not text order.
    assert_eq!(
        seqs(query_all(client, Reading::primary(123u64)).await),
        [-7, 2, 9, 10, 100]
    );
    assert_eq!(
        seqs(query_all(client, Reading::primary(123u64).seq().gt(9)).await),
        [10, 100]
    );
    assert_eq!(
        seqs(query_all(client, Reading::primary(123u64).seq().between(2, 10)).await),
        [2, 9, 10]
    );
    assert_eq!(
        seqs(query_all(client, Reading::primary(123u64).seq().lte(-1)).await),
        [-7]
    );
    assert!(
        query_all(client, Reading::primary(123u64).seq().between(10, 2))
            .await
            .is_empty()
    );
    // Pages resume from a cursor holding numbers.
    let page = client
        .query(Reading::primary(123u64))
        .page_size(2)
        .await
        .unwrap();
    assert!(page.cursor.is_some());
    let paged = client
        .query(Reading::primary(123u64))
        .page_size(2)
        .all()
        .await
        .unwrap();
    assert_eq!(seqs(paged), [-7, 2, 9, 10, 100]);
    // Batches name number keys too.
    let out = client
        .batch_get([
            Reading::key(123u64, 2),
            Reading::key(123u64, 10),
            Reading::key(123u64, 11),
        ])
        .await
        .unwrap();
    let mut got = seqs(out.items);
    got.sort();
    assert_eq!(got, [2, 10]);
    client
        .batch_write()
        .put_all(&[reading(11), reading(12)])
        .await
        .unwrap();
    assert_eq!(
        client.get(Reading::key(123u64, 12)).await.unwrap(),
        Some(reading(12))
    );
    client.delete(Reading::key(123u64, 9)).await.unwrap();
    assert_eq!(client.get(Reading::key(123u64, 9)).await.unwrap(), None);
}

#[test]
fn seed_001_and_003_stored_keys() {
    let u = LibUser {
        user_id: "123".into(),
        name: "Alice".into(),
    };
    assert_eq!((u.pk(), u.sk()), ("USER#123".into(), "USER#123".into()));
    let o = LibOrder {
        user_id: "123".into(),
        order_id: "abc".into(),
        total: 99.99,
    };
    assert_eq!(
        keys(&o.to_item().unwrap(), &["pk", "sk", "gsi1pk", "gsi1sk"]),
        ["USER#123", "ORDER#abc", "ORDER#abc", "USER#123"]
    );
    let t = TimedOrder {
        user_id: "123".into(),
        placed_at: "2024-01-15".into(),
        order_id: "abc".into(),
        status: "PENDING".into(),
    };
    assert_eq!(
        keys(&t.to_item().unwrap(), &["pk", "sk", "gsi1pk", "gsi1sk"]),
        [
            "USER#123",
            "ORDER#2024-01-15#abc",
            "STATUS#PENDING",
            "ORDER#2024-01-15#abc"
        ]
    );
    let s = ShardedUser {
        shard: 7,
        user_id: "u1".into(),
    };
    assert_eq!(s.pk(), "STATUS#ACTIVE#SHARD#7");
    assert_eq!(
        ShardedUser::parse_pk("STATUS#ACTIVE#SHARD#7").unwrap(),
        (7,)
    );
    assert!(!ShardedUser::is_pk("STATUS#ACTIVE#SHARD#07"));
    let m = Metric {
        sensor_id: "123".into(),
        at_ms: 1_705_314_600_000,
        metric_id: "m1".into(),
    };
    assert_eq!(m.sk(), "METRIC#1705314600000#m1");
    let store = Store {
        country: "US".into(),
        state: "CA".into(),
        city: "SF".into(),
        store_id: "s1".into(),
    };
    assert_eq!(store.pk(), "US#CA#SF");
    assert_eq!(
        Store::parse_pk("US#CA#SF").unwrap(),
        ("US".to_owned(), "CA".to_owned(), "SF".to_owned())
    );
}

#[tokio::test]
async fn seed_001_and_003_access_patterns() {
    let t = table(&[
        LibUser::MODEL,
        LibProfile::MODEL,
        LibOrder::MODEL,
        ShardedUser::MODEL,
        Metric::MODEL,
    ])
    .await;
    let client = &t.client;
    let user = LibUser {
        user_id: "123".into(),
        name: "Alice".into(),
    };
    let profile = LibProfile {
        user_id: "123".into(),
        bio: "Software engineer".into(),
    };
    let order = |id: &str| LibOrder {
        user_id: "123".into(),
        order_id: id.into(),
        total: 1.0,
    };
    client.put(&user).await.unwrap();
    client.put(&profile).await.unwrap();
    client.put(&order("order-1")).await.unwrap();
    client.put(&order("order-2")).await.unwrap();
    assert_eq!(client.get(LibUser::key("123")).await.unwrap(), Some(user));
    assert_eq!(
        client.get(LibProfile::key("123")).await.unwrap(),
        Some(profile)
    );
    // Orders of a user: `begins_with(sk, "ORDER#")`.
    assert_eq!(query_all(client, LibOrder::primary("123")).await.len(), 2);
    // Inverted: which user owns an order.
    assert_eq!(
        query_all(client, LibOrder::inverted("order-2")).await,
        [order("order-2")]
    );

    // Every shard of a sharded partition.
    for (shard, user) in [(0u8, "a"), (7, "b"), (9, "c")] {
        let s = ShardedUser {
            shard,
            user_id: user.into(),
        };
        client.put(&s).await.unwrap();
    }
    let mut all = Vec::new();
    for shard in 0..10u8 {
        all.extend(query_all(client, ShardedUser::primary(shard)).await);
    }
    assert_eq!(all.len(), 3);

    let metric = Metric {
        sensor_id: "123".into(),
        at_ms: 1_705_314_600_000,
        metric_id: "m1".into(),
    };
    client.put(&metric).await.unwrap();
    assert_eq!(
        query_all(
            client,
            Metric::primary("123").at_ms().eq(1_705_314_600_000u64)
        )
        .await,
        [metric]
    );
}

#[test]
fn seed_004_stored_keys() {
    let ulid = "01HX7MBJK3V9WQBZ7XNDK5ZT2M";
    let p = Product {
        tenant_code: "tenant001".into(),
        id: ulid.into(),
    };
    assert_eq!((p.pk(), p.sk()), ("PRODUCT#tenant001".into(), ulid.into()));
    let i = OrderItem {
        tenant_code: "tenant001".into(),
        order_id: ulid.into(),
        item_id: "001".into(),
    };
    assert_eq!(i.sk(), format!("ORDER_ITEM#{ulid}#001"));
    let c = OrderCommand {
        tenant_code: "tenant001".into(),
        order_id: ulid.into(),
        version: 3,
    };
    assert_eq!(c.sk(), format!("ORDER#{ulid}@3"));
    assert_eq!(
        OrderCommand::parse_sk(&format!("ORDER#{ulid}@3")).unwrap(),
        (ulid.to_owned(), 3)
    );
    // The id may hold `@`: it ends at the segment's last `@`.
    assert_eq!(OrderCommand::sk_of("a@b", 12u32), "ORDER#a@b@12");
    assert_eq!(
        OrderCommand::parse_sk("ORDER#a@b@12").unwrap(),
        ("a@b".to_owned(), 12)
    );
    assert!(!OrderCommand::is_sk("ORDER#abc"));
    assert!(!OrderCommand::is_sk("ORDER#abc@03"));
    let pc = ProductCommand {
        tenant_code: "tenant001".into(),
        id: ulid.into(),
        version: 3,
    };
    assert_eq!(pc.sk(), format!("{ulid}@3"));
    let a = AuthUser {
        tenant_code: "common".into(),
        provider: "sso".into(),
        user_id: "abc123def456".into(),
    };
    assert_eq!(
        (a.pk(), a.sk()),
        ("USER#common".into(), "sso#abc123def456".into())
    );
    let ut = UserTenant {
        tenant_code: "tenant001".into(),
        user_code: "user123".into(),
    };
    assert_eq!(
        (ut.pk(), ut.sk()),
        ("USER_TENANT#common".into(), "tenant001#user123".into())
    );
    let m = Master {
        tenant_code: "tenant001".into(),
        kind: "SETTING".into(),
        category: "notification".into(),
        code: "email_template".into(),
    };
    assert_eq!(
        (m.pk(), m.sk()),
        (
            "MASTER#tenant001".into(),
            "SETTING#notification#email_template".into()
        )
    );
    let l = Log {
        tenant_code: "tenant001".into(),
        at: utc("2024-01-15T10:30:00Z"),
        event_id: "evt001".into(),
    };
    assert_eq!(
        (l.pk(), l.sk()),
        (
            "LOG#tenant001#2024-01".into(),
            "2024-01-15T10:30:00.000000000Z#evt001".into()
        )
    );
    let item = l.to_item().unwrap();
    assert_eq!(
        keys(&item, &["pk", "sk"]),
        [
            "LOG#tenant001#2024-01",
            "2024-01-15T10:30:00.000000000Z#evt001"
        ]
    );
    // The month is derived, not stored: the item holds `at` and no `month`.
    assert!(!item.contains_key("month"));
    assert_eq!(Log::pk_of("tenant001", utc("2024-01-31T23:59:59Z")), l.pk());
    // The parser gives back the bucket's text: a month does not hold the
    // instant.
    assert_eq!(
        Log::parse_pk("LOG#tenant001#2024-01").unwrap(),
        ("tenant001".to_owned(), "2024-01".to_owned())
    );
    assert!(Log::is_pk("LOG#tenant001#2024-01"));
    assert!(!Log::is_pk("LOG#tenant001#2024-13"));
    assert!(!Log::is_pk("LOG#tenant001#2024-01-15"));
}

#[tokio::test]
async fn seed_004_access_patterns() {
    let t = table(&[
        Product::MODEL,
        OrderItem::MODEL,
        OrderCommand::MODEL,
        AuthUser::MODEL,
        Master::MODEL,
        Log::MODEL,
    ])
    .await;
    let client = &t.client;
    let ulid = "01HX7MBJK3V9WQBZ7XNDK5ZT2M";
    let p = Product {
        tenant_code: "tenant001".into(),
        id: ulid.into(),
    };
    client.put(&p).await.unwrap();
    assert_eq!(
        client.get(Product::key("tenant001", ulid)).await.unwrap(),
        Some(p)
    );

    for item in ["001", "002"] {
        let i = OrderItem {
            tenant_code: "tenant001".into(),
            order_id: ulid.into(),
            item_id: item.into(),
        };
        client.put(&i).await.unwrap();
    }
    // The items of one order: `begins_with(sk, "ORDER_ITEM#<orderId>#")`.
    assert_eq!(
        query_all(client, OrderItem::primary("tenant001").order_id().eq(ulid))
            .await
            .len(),
        2
    );

    // The version history of one order: `begins_with(sk, "ORDER#<id>@")`.
    let command = |order: &str, version: u32| OrderCommand {
        tenant_code: "tenant001".into(),
        order_id: order.into(),
        version,
    };
    for (order, version) in [(ulid, 1), (ulid, 2), (ulid, 3), ("other", 1)] {
        client.put(&command(order, version)).await.unwrap();
    }
    let history = query_all(
        client,
        OrderCommand::primary("tenant001").order_id().eq(ulid),
    )
    .await;
    assert_eq!(
        history,
        [command(ulid, 1), command(ulid, 2), command(ulid, 3)]
    );
    assert_eq!(
        client
            .get(OrderCommand::key("tenant001", ulid, 2u32))
            .await
            .unwrap(),
        Some(command(ulid, 2))
    );

    for (provider, user) in [
        ("local", "user123"),
        ("sso", "abc123def456"),
        ("oauth", "google789"),
    ] {
        let a = AuthUser {
            tenant_code: "common".into(),
            provider: provider.into(),
            user_id: user.into(),
        };
        client.put(&a).await.unwrap();
    }
    assert_eq!(
        query_all(client, AuthUser::primary("common").provider().eq("sso"))
            .await
            .len(),
        1
    );

    for (kind, category, code) in [
        ("SETTING", "notification", "email_template"),
        ("DATA", "product_category", "electronics"),
        ("DATA", "product_category", "clothing"),
    ] {
        let m = Master {
            tenant_code: "tenant001".into(),
            kind: kind.into(),
            category: category.into(),
            code: code.into(),
        };
        client.put(&m).await.unwrap();
    }
    let data = query_all(
        client,
        Master::primary("tenant001")
            .kind()
            .eq("DATA")
            .category()
            .eq("product_category"),
    )
    .await;
    assert_eq!(
        data.iter().map(|m| m.code.as_str()).collect::<Vec<_>>(),
        ["clothing", "electronics"]
    );

    for (at, id) in [
        ("2024-01-15T10:30:00Z", "evt001"),
        ("2024-01-15T10:31:00Z", "evt002"),
        ("2024-02-01T00:00:00Z", "evt003"),
    ] {
        let l = Log {
            tenant_code: "tenant001".into(),
            at: utc(at),
            event_id: id.into(),
        };
        client.put(&l).await.unwrap();
    }
    // The accessor takes an instant and queries its month's partition.
    let late = query_all(
        client,
        Log::primary("tenant001", utc("2024-01-20T00:00:00Z"))
            .at()
            .gte(utc("2024-01-15T10:31:00Z")),
    )
    .await;
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].event_id, "evt002");
    assert_eq!(late[0].at, utc("2024-01-15T10:31:00Z"));
    let february = query_all(
        client,
        Log::primary("tenant001", utc("2024-02-10T00:00:00Z")),
    )
    .await;
    assert_eq!(
        february
            .iter()
            .map(|l| l.event_id.as_str())
            .collect::<Vec<_>>(),
        ["evt003"]
    );
}
