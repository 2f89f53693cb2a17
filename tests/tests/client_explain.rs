//! `explain()`: every builder renders the exact request it would send, and
//! sends nothing.

mod common;

use common::scan_raw;
use entity_client::{Entity, Explain};
use entity_tests::harness::table;
use entity_tests::Order;

fn order(id: &str) -> Order {
    Order {
        user_id: "u1".into(),
        day: "2024-01-15".into(),
        order_id: id.into(),
        total_cents: 100,
    }
}

#[tokio::test]
async fn writes_are_explained_and_not_sent() {
    let t = table(&[Order::MODEL]).await;
    let c = &t.client;
    let f = Order::fields();

    let put = c.put(&order("o1")).explain().await.unwrap();
    let request = put.request().unwrap();
    assert_eq!(request.operation, "PutItem");
    let json = request.json();
    assert_eq!(json["Item"]["order_id"]["S"], "o1");
    assert_eq!(json["TableName"], c.table());

    let create = c.create(&order("o1")).explain().await.unwrap();
    let request = create.request().unwrap();
    assert_eq!(request.operation, "TransactWriteItems", "exactly once");
    let put = &request.json()["TransactItems"][0]["Put"];
    assert!(put["ConditionExpression"]
        .as_str()
        .unwrap()
        .starts_with("attribute_not_exists"));

    let update = c
        .update(Order::key("u1", "2024-01-15", "o1"))
        .set(f.total_cents, 7i64)
        .explain()
        .await
        .unwrap();
    let json = update.request().unwrap().json();
    assert!(json["UpdateExpression"]
        .as_str()
        .unwrap()
        .starts_with("SET "));
    assert!(json["ExpressionAttributeValues"].is_object());

    let batch = c
        .batch_write()
        .put_all(&[order("o2"), order("o3")])
        .explain()
        .await
        .unwrap();
    assert_eq!(batch.request().unwrap().operation, "BatchWriteItem");

    assert!(scan_raw(c).await.is_empty(), "nothing was written");
    println!("{create}");
}

#[tokio::test]
async fn reads_are_explained_and_errors_before_sending_are_returned() {
    let t = table(&[Order::MODEL]).await;
    let c = &t.client;

    let query = c
        .query(Order::primary("u1").limit(5))
        .explain()
        .await
        .unwrap();
    let json = query.request().unwrap().json();
    assert_eq!(query.request().unwrap().operation, "Query");
    assert!(json["KeyConditionExpression"].is_string());
    assert!(json["FilterExpression"].is_string(), "the identity filter");

    let get = c
        .get(Order::key("u1", "2024-01-15", "o1"))
        .explain()
        .await
        .unwrap();
    assert_eq!(get.request().unwrap().operation, "GetItem");

    let long = "u".repeat(3000);
    let too_long = c.get(Order::key(&long, "2024-01-15", "o1")).explain().await;
    assert!(
        matches!(too_long, Err(entity_client::Error::Validation(_))),
        "refused before sending: {too_long:?}"
    );
}

/// A soft-deleted, versioned entity with history and a unique slug: the
/// builders that read first (restore, get_unique, history) have something
/// to read.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", soft_delete, history, unique(slug))]
#[pk(doc_id)]
#[sk()]
struct Doc {
    doc_id: String,
    slug: String,
    #[entity(version)]
    version: u64,
}

fn doc(id: &str) -> Doc {
    Doc {
        doc_id: id.into(),
        slug: format!("slug-{id}"),
        version: 0,
    }
}

/// The operations of the requests a builder would send.
fn operations(explained: &entity_client::Explained) -> Vec<&str> {
    explained
        .requests
        .iter()
        .map(|r| r.operation.as_str())
        .collect()
}

/// Every builder (all 21 of them) says what it would send, and sends none
/// of it.
#[tokio::test]
async fn every_builder_explains_what_it_would_send() {
    use entity_client::expr::Update;
    use entity_tests::tenancy::Note;
    let t = table(&[Order::MODEL, Doc::MODEL, Note::MODEL]).await;
    let c = &t.client;
    let f = Order::fields();
    let key = || Order::key("u1", "2024-01-15", "o1");
    // A live doc with two versions of history, and a soft-deleted one.
    let live = c.create(&doc("d1")).await.unwrap();
    c.put(&live).await.unwrap();
    c.create(&doc("d2")).await.unwrap();
    c.delete(Doc::key("d2")).await.unwrap();
    let stored = scan_raw(c).await;

    let note = Note {
        tenant_id: "acme".into(),
        id: "n1".into(),
        text: "hello".into(),
    };
    let acme = c.tenant("acme");
    let admin = c.cross_tenant();
    let expected: Vec<(&str, entity_client::Explained, &[&str])> = vec![
        (
            "put",
            c.put(&order("o1")).explain().await.unwrap(),
            &["PutItem"],
        ),
        (
            "create",
            c.create(&order("o1")).explain().await.unwrap(),
            &["TransactWriteItems"],
        ),
        (
            "update",
            c.update(key())
                .set(f.total_cents, 7i64)
                .explain()
                .await
                .unwrap(),
            &["UpdateItem"],
        ),
        (
            "delete",
            c.delete(key()).explain().await.unwrap(),
            &["DeleteItem"],
        ),
        (
            "restore",
            c.restore(Doc::key("d2")).explain().await.unwrap(),
            &["TransactWriteItems"],
        ),
        ("get", c.get(key()).explain().await.unwrap(), &["GetItem"]),
        (
            "projected get",
            c.get(key())
                .project([f.total_cents.name()])
                .explain()
                .await
                .unwrap(),
            &["GetItem"],
        ),
        (
            "get_unique",
            c.get_unique(Doc::by_slug("slug-d1"))
                .explain()
                .await
                .unwrap(),
            &["GetItem"],
        ),
        (
            "history",
            c.history(Doc::key("d1")).explain().await.unwrap(),
            &["Query"], // after the stored item's version, read for real
        ),
        (
            "query",
            c.query(Order::primary("u1")).explain().await.unwrap(),
            &["Query"],
        ),
        (
            "scan",
            c.scan::<Order>().explain().await.unwrap(),
            &["Scan"],
        ),
        (
            "batch_write",
            c.batch_write().put(&order("o2")).explain().await.unwrap(),
            &["BatchWriteItem"],
        ),
        (
            "batch_get",
            c.batch_get([key()]).explain().await.unwrap(),
            &["BatchGetItem"],
        ),
        (
            "transact_write",
            c.transact_write()
                .put(&order("o3"))
                .explain()
                .await
                .unwrap(),
            &["TransactWriteItems"],
        ),
        (
            "transact_get",
            c.transact_get().get(key()).explain().await.unwrap(),
            &["TransactGetItems"],
        ),
        (
            "create_table",
            c.create_table(&[Order::MODEL]).explain().await.unwrap(),
            &["CreateTable"],
        ),
        (
            "migrate",
            c.migrate::<Order>().explain().await.unwrap(),
            &["Scan"],
        ),
        (
            "tenant transact_write",
            acme.transact_write().put(&note).explain().await.unwrap(),
            &["TransactWriteItems"],
        ),
        (
            "tenant transact_get",
            acme.transact_get()
                .get(Note::tenant_key("n1"))
                .explain()
                .await
                .unwrap(),
            &["TransactGetItems"],
        ),
        (
            "cross-tenant transact_write",
            admin
                .transact_write()
                .update(
                    Note::key("acme", "n1"),
                    Update::new().set(Note::fields().text, "x"),
                    None,
                )
                .explain()
                .await
                .unwrap(),
            &["TransactWriteItems"],
        ),
        (
            "cross-tenant transact_get",
            admin
                .transact_get()
                .get(Note::key("acme", "n1"))
                .explain()
                .await
                .unwrap(),
            &["TransactGetItems"],
        ),
        (
            "cross-tenant batch_write",
            admin.batch_write().put(&note).explain().await.unwrap(),
            &["BatchWriteItem"],
        ),
    ];
    for (builder, explained, operations_expected) in &expected {
        assert_eq!(
            operations(explained),
            *operations_expected,
            "{builder}: {explained}"
        );
        for request in &explained.requests {
            assert!(request.body.contains(c.table()), "{builder}: {explained}");
        }
    }
    assert_eq!(
        expected.len(),
        22,
        "21 builders (`get` twice: plain and projected)"
    );

    // What the explained builders would have read or written is as it was.
    let json = |e: &entity_client::Explained| e.request().unwrap().json();
    let projected = json(&expected[6].1);
    assert!(projected["ProjectionExpression"].is_string(), "{projected}");
    let table = json(&expected[15].1);
    assert_eq!(table["BillingMode"], "PAY_PER_REQUEST", "{table}");
    assert_eq!(scan_raw(c).await, stored, "nothing was sent");
}
