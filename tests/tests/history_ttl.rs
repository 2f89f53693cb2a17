//! History with a TTL: a snapshot that expires (`history(expire_after)`)
//! holds its expiry in the table's TTL attribute, so the version's own TTL
//! is kept beside it and read back as the entity's field; and a snapshot
//! past its TTL, which DynamoDB has not deleted yet, is hidden as every
//! expired item is.

use entity_client::{Client, Entity, EpochSeconds};
use entity_tests::clock::TestClock;
use entity_tests::harness::{table, TestTable};

// In the real future (2030): a server that sweeps expired items on its own
// clock (DynamoDB Local does) never deletes a test's item mid-test.
const T0: i64 = 1_900_000_000;
const DAY: i64 = 86_400;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "ht", history(expire_after = "1d"))]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    body: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

async fn setup() -> (TestTable, Client, TestClock) {
    let t = table(&[Doc::MODEL]).await;
    let clock = TestClock::at(T0 as u64);
    let client = t.client.clone().with_clock(clock.clone());
    (t, client, clock)
}

#[tokio::test]
async fn each_version_reads_with_its_own_ttl_until_its_snapshot_expires() {
    let (_t, client, clock) = setup().await;
    let first = Doc {
        id: "d".into(),
        body: "v1".into(),
        version: 0,
        expires_at: None,
    };
    let first = client.create(&first).await.unwrap();
    let own = Some(EpochSeconds(T0 + 30 * DAY));
    let second = Doc {
        body: "v2".into(),
        expires_at: own,
        ..first.clone()
    };
    let second = client.put(&second).await.unwrap();
    let read = |history: Vec<Doc>| -> Vec<(u64, Option<EpochSeconds>)> {
        history.iter().map(|d| (d.version, d.expires_at)).collect()
    };
    let history = client.history(Doc::key("d")).consistent_read(true);
    assert_eq!(read(history.all().await.unwrap()), [(2, own), (1, None)]);
    let v1 = client.history(Doc::key("d")).version(1).await.unwrap();
    assert_eq!(v1, Some(first));
    // A day later both snapshots are past their TTL: hidden, while the
    // item itself lives on.
    clock.set((T0 + DAY + 1) as u64);
    let history = client.history(Doc::key("d")).consistent_read(true);
    assert_eq!(history.all().await.unwrap(), []);
    assert_eq!(
        client.history(Doc::key("d")).version(1).await.unwrap(),
        None
    );
    assert_eq!(client.get(Doc::key("d")).await.unwrap(), Some(second));
}
