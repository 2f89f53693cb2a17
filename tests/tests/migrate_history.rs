//! A migration that moves a history entity's items (a new shard count puts
//! them in other partitions) moves their snapshots with them: the history
//! of each item reads whole under its new key, and nothing of it is left
//! under the old one. Only its own: `j0@x`'s snapshots (`J#j0@x@..`) begin
//! as `j0`'s do (`J#j0@..`), and stay `j0@x`'s.

use entity_client::Entity;
use entity_tests::harness::table;

mod before {
    use entity_client::Entity;

    /// Two shards.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "mh", name = "Job", history)]
    #[pk(format = "Q#{queue}", shards = 2)]
    #[sk(format = "J#{job}")]
    pub struct Job {
        pub queue: String,
        pub job: String,
        pub state: String,
        #[entity(version)]
        pub version: u64,
    }
}

/// Five shards: most items move to another partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mh", name = "Job", history)]
#[pk(format = "Q#{queue}", shards = 5)]
#[sk(format = "J#{job}")]
struct Job {
    queue: String,
    job: String,
    state: String,
    #[entity(version)]
    version: u64,
}

const JOBS: usize = 8;

/// The jobs: `j0` to `j7`, and `j0@x`, whose snapshots' sort keys begin
/// with `j0`'s snapshot prefix.
fn jobs() -> Vec<String> {
    let mut jobs: Vec<String> = (0..JOBS).map(|i| format!("j{i}")).collect();
    jobs.push("j0@x".into());
    jobs
}

#[tokio::test]
async fn a_moved_item_takes_its_snapshots_along() {
    let t = table(&[Job::MODEL]).await;
    let c = &t.client;
    for name in jobs() {
        let job = before::Job {
            queue: "q".into(),
            job: name,
            state: "new".into(),
            version: 0,
        };
        let mut job = c.create(&job).await.unwrap();
        job.state = "running".into();
        c.put(&job).await.unwrap();
    }
    let moved = jobs()
        .iter()
        .filter(|name| {
            let old = before::Job::key("q", name.as_str()).to_item();
            Job::key("q", name.as_str()).to_item() != old
        })
        .count();
    assert!(moved > 0, "the new shard count moves some items");
    let report = c.migrate::<Job>().await.unwrap();
    assert_eq!(report.counts.rewritten, moved as u64);
    for name in jobs() {
        let history = c.history(Job::key("q", name.as_str()));
        let states: Vec<(u64, String)> = (history.consistent_read(true).all().await.unwrap())
            .into_iter()
            .map(|j| (j.version, j.state))
            .collect();
        assert_eq!(
            states,
            [(2, "running".to_owned()), (1, "new".to_owned())],
            "{name}"
        );
    }
    // Every snapshot lives where its item does: as many as before, none
    // left in a partition its item moved out of.
    let scan = c.sdk().scan().table_name(c.table()).send().await.unwrap();
    let items = scan.items.unwrap_or_default();
    assert_eq!(items.len(), jobs().len() * 3, "{items:?}");
    for name in jobs() {
        let live = Job::key("q", name.as_str()).to_item();
        let sk = live["sk"].as_s().unwrap();
        let own = |item: &&entity_client::Item| {
            let at = item["sk"].as_s().unwrap();
            at == sk || at.strip_prefix(sk.as_str()).is_some_and(|v| v.len() == 11)
        };
        let beside = items
            .iter()
            .filter(|item| item["pk"] == live["pk"])
            .filter(own)
            .count();
        assert_eq!(beside, 3, "{name}: the item and its two snapshots");
    }
}
