//! Hot partitions and anti-patterns: a client that records request
//! statistics, some traffic that does each thing the report warns about,
//! and the report.
//!
//! The embedded server is one process on one machine, so the per-partition
//! limits the hot-partition detector compares against are scaled down
//! 100-fold (30 RCU/s and 10 WCU/s instead of DynamoDB's 3,000 and 1,000);
//! against DynamoDB keep the defaults. Throttling needs a server that
//! throttles (the integration tests provoke it through a fault-injecting
//! proxy), so it is not shown here.
//!
//! Run it with `cargo run -p examples --example hot_partitions`.

use entity_client::stats::Thresholds;
use entity_client::{EmbeddedDynamo, Entity, StatsConfig};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop")]
#[pk(status)]
#[sk(order_id)]
struct Order {
    status: String,
    order_id: u32,
    region: String,
    notes: String,
}

fn order(status: &str, order_id: u32) -> Order {
    Order {
        status: status.into(),
        order_id,
        region: if order_id.is_multiple_of(50) {
            "eu"
        } else {
            "us"
        }
        .into(),
        notes: String::new(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = EmbeddedDynamo::start().await?;
    let config = StatsConfig::default().thresholds(Thresholds {
        partition_read_units: 30.0,
        partition_write_units: 10.0,
        ..Thresholds::default()
    });
    let client = server.client("shop").with_stats(config);
    client.create_table(&[Order::MODEL]).await?;

    // A low-cardinality partition key: every pending order in one
    // partition (the anti-pattern sharding fixes), written in batches.
    let pending: Vec<Order> = (0..2000).map(|i| order("PENDING", i)).collect();
    client.batch_write().put_all(&pending).await?;
    let shipped: Vec<Order> = (0..20).map(|i| order(&format!("SHIPPED-{i}"), i)).collect();
    client.batch_write().put_all(&shipped).await?;

    // Hot partition and unbounded fan-out: the dashboard reads every
    // pending order, every page, again and again.
    for _ in 0..5 {
        client.query(Order::primary("PENDING")).all().await?;
    }

    // Filter waste: 2,000 orders read to keep the 40 in the EU.
    let f = Order::fields();
    let eu = (client.query(Order::primary("PENDING")))
        .filter(f.region.eq("eu".to_owned()))
        .all()
        .await?;
    println!("{} pending EU orders", eu.len());

    // A scan to count orders.
    let all = client.scan::<Order>().all().await?;
    println!("{} orders in all", all.len());

    // An order whose notes grew to 350 KB.
    let mut large = order("SHIPPED-0", 0);
    large.notes = "n".repeat(350 * 1024);
    client.put(&large).await?;

    let report = client.stats().expect("stats are on").report();
    println!("\n{report}");
    Ok(())
}
