//! What a projected index saves on reads: the read capacity DynamoDB
//! reports (`Client::measure`) for listing one owner's 1,000 tasks of about
//! 2 KB each through three indexes on the same keys, projecting `ALL`,
//! `INCLUDE (title)` and `KEYS_ONLY`, and for the common pattern of listing
//! a keys-only index and hydrating one page of 25 whole entities.
//! Printed as capacity units and as the ratio to the `ALL` index.
//! `cargo bench -p entity-tests --bench projection`; without `--bench`
//! (`cargo test --benches`) it runs a quick pass of 200 tasks. Set
//! `ENTITY_TEST_ENDPOINT` to measure DynamoDB Local (or another server).

use entity_client::{Entity, IndexView};
use entity_tests::bench::quick;
use entity_tests::harness::table;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "bench")]
#[pk(task_id)]
#[sk()]
#[index(whole(gsi = "gsi1", pk(owner), sk(task_id)))]
#[index(titled(gsi = "gsi2", pk(owner), sk(task_id), projection = include(title)))]
#[index(keyed(gsi = "gsi3", pk(owner), sk(task_id), projection = keys_only))]
struct Task {
    task_id: String,
    owner: String,
    title: String,
    notes: String,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = quick();
    let n = if quick { 200 } else { 1_000 };
    let t = table(&[Task::MODEL]).await;
    let tasks: Vec<Task> = (0..n)
        .map(|i| Task {
            task_id: format!("task-{i:05}"),
            owner: "ann".into(),
            title: format!("Task number {i} of the quarterly plan"),
            notes: format!("{i} notes on the task, its owner and its history. ").repeat(40),
        })
        .collect();
    let size = tasks[0].item_size().expect("size").total;
    t.client.batch_write().put_all(&tasks).await.expect("write");
    let client = &t.client;

    let (whole, all) = client
        .measure(|c| async move { c.query(Task::whole("ann")).all().await })
        .await;
    assert_eq!(whole.expect("whole").len(), n);
    let (titled, include) = client
        .measure(|c| async move { c.query(Task::titled("ann")).all().await })
        .await;
    let titled = titled.expect("titled");
    assert_eq!(titled.len(), n);
    assert!(titled.iter().zip(&tasks).all(|(v, t)| v.title == t.title));
    let (keyed, keys) = client
        .measure(|c| async move { c.query(Task::keyed("ann")).all().await })
        .await;
    let keyed = keyed.expect("keyed");
    assert_eq!(keyed.len(), n);
    // One page of 25 views, hydrated: what a listing screen reads.
    let (page, listing) = client
        .measure(|c| async move { c.query(Task::keyed("ann")).limit(25).hydrate().await })
        .await;
    let page = page.expect("page");
    assert_eq!(page.items, tasks[..25]);
    let (first_whole, whole_page) = client
        .measure(|c| async move { c.query(Task::whole("ann")).limit(25).all().await })
        .await;
    assert_eq!(first_whole.expect("page"), tasks[..25]);
    assert_eq!(keyed[0].primary_key(), tasks[0].primary_key());

    println!("projection: {n} tasks of {size} bytes, one owner, read capacity units reported by the server");
    println!("{:<44} {:>10} {:>10}", "read", "RCU", "vs ALL");
    let row = |what: &str, units: f64, base: f64| {
        println!("{what:<44} {units:>10.1} {:>10.3}", units / base);
    };
    row(
        "every task through the ALL index",
        all.read_units,
        all.read_units,
    );
    row(
        "every view through INCLUDE (title)",
        include.read_units,
        all.read_units,
    );
    row(
        "every view through KEYS_ONLY",
        keys.read_units,
        all.read_units,
    );
    row(
        "25 whole tasks through the ALL index",
        whole_page.read_units,
        whole_page.read_units,
    );
    row(
        "25 views through KEYS_ONLY, hydrated",
        listing.read_units,
        whole_page.read_units,
    );
}
