//! Multi-attribute GSI keys: an index keyed on fields' own attributes (two
//! `HASH`, two `RANGE`), created by `create_table` and queried through the
//! typed accessor: equality on the partition attributes, a sort prefix, a
//! range on the last sort attribute given, and sparse items (a missing sort
//! attribute keeps an item out of the index).

mod common;

use entity_client::{Client, Entity, Query};
use entity_tests::harness::table;

/// Orders by tenant and region, sorted by status then priority (a number,
/// compared as a number).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop")]
#[pk(order_id)]
#[index(by_region(
    gsi = "gsi3",
    multi_attribute,
    pk(tenant_id, region),
    sk(status, priority)
))]
struct RegionOrder {
    order_id: String,
    tenant_id: String,
    region: String,
    status: String,
    /// `None`: the order is not in `gsi3` (a sparse index).
    priority: Option<u32>,
}

fn order(id: &str, tenant: &str, region: &str, status: &str, priority: Option<u32>) -> RegionOrder {
    RegionOrder {
        order_id: id.into(),
        tenant_id: tenant.into(),
        region: region.into(),
        status: status.into(),
        priority,
    }
}

fn orders() -> Vec<RegionOrder> {
    vec![
        order("o1", "t1", "eu", "open", Some(2)),
        order("o2", "t1", "eu", "open", Some(10)),
        order("o3", "t1", "eu", "open", Some(1)),
        order("o4", "t1", "eu", "shipped", Some(5)),
        order("o5", "t1", "us", "open", Some(3)),
        order("o6", "t2", "eu", "open", Some(4)),
        // No priority: not in the index.
        order("o7", "t1", "eu", "open", None),
    ]
}

async fn ids(client: &Client, query: impl Into<Query<RegionOrder>>) -> Vec<String> {
    let items = client.query(query.into()).all().await.unwrap();
    items.into_iter().map(|o| o.order_id).collect()
}

#[tokio::test]
async fn create_put_and_query_a_multi_attribute_index() {
    let t = table(&[RegionOrder::MODEL]).await;
    for o in orders() {
        t.client.put(&o).await.unwrap();
    }
    // The key attributes are the fields' own: no composed key is written.
    let item = RegionOrder::MODEL;
    assert_eq!(item.indexes[0].multi_attribute.len(), 4);
    let c = &t.client;
    common::eventually(4, || async {
        ids(c, RegionOrder::by_region("t1", "eu")).await.len()
    })
    .await;

    // Equality on every partition attribute: sorted by status, then by
    // priority as a number (10 after 2).
    assert_eq!(
        ids(c, RegionOrder::by_region("t1", "eu")).await,
        ["o3", "o1", "o2", "o4"]
    );
    assert_eq!(ids(c, RegionOrder::by_region("t1", "us")).await, ["o5"]);
    assert_eq!(ids(c, RegionOrder::by_region("t2", "eu")).await, ["o6"]);
    // A sort prefix, then both sort attributes.
    assert_eq!(
        ids(c, RegionOrder::by_region("t1", "eu").status().eq("open")).await,
        ["o3", "o1", "o2"]
    );
    assert_eq!(
        ids(
            c,
            RegionOrder::by_region("t1", "eu")
                .status()
                .eq("open")
                .priority()
                .eq(10u32)
        )
        .await,
        ["o2"]
    );
    // A range on the last sort attribute given.
    assert_eq!(
        ids(
            c,
            RegionOrder::by_region("t1", "eu")
                .status()
                .eq("open")
                .priority()
                .gt(1u32)
        )
        .await,
        ["o1", "o2"]
    );
    assert_eq!(
        ids(
            c,
            RegionOrder::by_region("t1", "eu")
                .status()
                .eq("open")
                .priority()
                .lte(2u32)
        )
        .await,
        ["o3", "o1"]
    );
    assert_eq!(
        ids(
            c,
            RegionOrder::by_region("t1", "eu")
                .status()
                .eq("open")
                .priority()
                .between(2u32, 10u32)
        )
        .await,
        ["o1", "o2"]
    );
    assert_eq!(
        ids(c, RegionOrder::by_region("t1", "eu").status().gt("open")).await,
        ["o4"]
    );
    assert_eq!(
        ids(
            c,
            RegionOrder::by_region("t1", "eu")
                .status()
                .begins_with("sh")
        )
        .await,
        ["o4"]
    );
    assert_eq!(
        ids(c, RegionOrder::by_region("t1", "eu").descending()).await,
        ["o4", "o2", "o1", "o3"]
    );
}

#[tokio::test]
async fn an_item_missing_a_key_attribute_is_not_in_the_index() {
    let t = table(&[RegionOrder::MODEL]).await;
    let c = &t.client;
    c.put(&order("in", "t9", "eu", "open", Some(1)))
        .await
        .unwrap();
    c.put(&order("out", "t9", "eu", "open", None))
        .await
        .unwrap();
    common::eventually(1, || async {
        ids(c, RegionOrder::by_region("t9", "eu")).await.len()
    })
    .await;
    assert_eq!(ids(c, RegionOrder::by_region("t9", "eu")).await, ["in"]);
    assert_eq!(
        ids(c, RegionOrder::by_region("t9", "eu").status().eq("open")).await,
        ["in"]
    );
    // The item is stored, only absent from the index.
    let out = c.get(RegionOrder::key("out")).await.unwrap().unwrap();
    assert_eq!(out.priority, None);
}

#[test]
fn the_key_condition_compares_native_values() {
    let q: Query<RegionOrder> = RegionOrder::by_region("t1", "eu")
        .status()
        .eq("open")
        .priority()
        .gt(3u32);
    assert_eq!(q.index_name(), Some("gsi3"));
    assert_eq!(
        q.key_condition_expression(),
        "#k0 = :k0 AND #k1 = :k1 AND #k2 = :k2 AND #k3 > :k3"
    );
    let names = q.expression_attribute_names();
    assert_eq!(
        (names["#k0"].as_str(), names["#k3"].as_str()),
        ("tenant_id", "priority")
    );
    let values = q.expression_attribute_values();
    assert_eq!(
        values[":k3"],
        aws_sdk_dynamodb::types::AttributeValue::N("3".into())
    );
}
