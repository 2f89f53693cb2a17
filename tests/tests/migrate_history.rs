//! A migration that moves a history entity's items (a new shard count puts
//! them in other partitions) moves their snapshots with them: the history
//! of each item reads whole under its new key, and nothing of it is left
//! under the old one.

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

#[tokio::test]
async fn a_moved_item_takes_its_snapshots_along() {
    let t = table(&[Job::MODEL]).await;
    let c = &t.client;
    for i in 0..JOBS {
        let job = before::Job {
            queue: "q".into(),
            job: format!("j{i}"),
            state: "new".into(),
            version: 0,
        };
        let mut job = c.create(&job).await.unwrap();
        job.state = "running".into();
        c.put(&job).await.unwrap();
    }
    let moved = (0..JOBS)
        .filter(|i| {
            let key = |k: entity_client::PrimaryKey<Job>| k.to_item();
            let old = before::Job::key("q", format!("j{i}")).to_item();
            key(Job::key("q", format!("j{i}"))) != old
        })
        .count();
    assert!(moved > 0, "the new shard count moves some items");
    let report = c.migrate::<Job>().await.unwrap();
    assert_eq!(report.counts.rewritten, moved as u64);
    for i in 0..JOBS {
        let history = c.history(Job::key("q", format!("j{i}")));
        let states: Vec<(u64, String)> = (history.consistent_read(true).all().await.unwrap())
            .into_iter()
            .map(|j| (j.version, j.state))
            .collect();
        assert_eq!(
            states,
            [(2, "running".to_owned()), (1, "new".to_owned())],
            "j{i}"
        );
    }
    // Every snapshot lives where its item does: as many as before, none
    // left in a partition its item moved out of.
    let scan = c.sdk().scan().table_name(c.table()).send().await.unwrap();
    let items = scan.items.unwrap_or_default();
    assert_eq!(items.len(), JOBS * 3, "{items:?}");
    for i in 0..JOBS {
        let live = Job::key("q", format!("j{i}")).to_item();
        let beside = items
            .iter()
            .filter(|item| item["pk"] == live["pk"])
            .filter(|item| {
                let sk = item["sk"].as_s().unwrap();
                sk.starts_with(live["sk"].as_s().unwrap())
            })
            .count();
        assert_eq!(beside, 3, "j{i}: the item and its two snapshots");
    }
}
