//! A soft delete that sets a TTL (`soft_delete(expire_after = ..)`) keeps
//! the item's own, and `restore` puts it back: a fixed TTL as it was (or
//! none), a sliding one moved by the restore as by any write. A TTL field
//! that is not an `Option` reads again after the restore.

use entity_client::{Client, Entity, EpochSeconds};
use entity_tests::clock::TestClock;
use entity_tests::harness::{table, TestTable};

// In the real future (2030): a server that sweeps expired items on its own
// clock (DynamoDB Local does) never deletes a test's item mid-test.
const T0: i64 = 1_900_000_000;
const DAY: i64 = 86_400;

/// A fixed TTL that is always set.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rt", soft_delete(expire_after = "1d"))]
#[pk(id)]
#[sk()]
struct Fixed {
    id: String,
    #[entity(ttl)]
    expires_at: EpochSeconds,
}

/// A sliding TTL: every write sets it to now plus an hour.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rt", soft_delete(expire_after = "1d"))]
#[pk(id)]
#[sk()]
struct Sliding {
    id: String,
    #[entity(ttl(after = "1h"))]
    expires_at: EpochSeconds,
}

/// An optional TTL, history kept (the delete's snapshot is the item as the
/// delete leaves it).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rt", soft_delete(expire_after = "1d"), history)]
#[pk(id)]
#[sk()]
struct Maybe {
    id: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

async fn setup() -> (TestTable, Client, TestClock) {
    let t = table(&[Fixed::MODEL, Sliding::MODEL, Maybe::MODEL]).await;
    let clock = TestClock::at(T0 as u64);
    let client = t.client.clone().with_clock(clock.clone());
    (t, client, clock)
}

#[tokio::test]
async fn a_fixed_ttl_is_put_back_as_it_was() {
    let (_t, client, _) = setup().await;
    let own = EpochSeconds(T0 + 365 * DAY);
    let fixed = Fixed {
        id: "f".into(),
        expires_at: own,
    };
    client.put(&fixed).await.unwrap();
    client.delete(Fixed::key("f")).await.unwrap();
    let deleted = client.get(Fixed::key("f")).include_deleted(true).await;
    // The delete's TTL while deleted.
    assert_eq!(deleted.unwrap().unwrap().expires_at, EpochSeconds(T0 + DAY));
    let restored = client.restore(Fixed::key("f")).await.unwrap();
    assert_eq!(restored.expires_at, own);
    assert_eq!(client.get(Fixed::key("f")).await.unwrap(), Some(fixed));
}

#[tokio::test]
async fn a_sliding_ttl_is_moved_by_the_restore() {
    let (_t, client, clock) = setup().await;
    let sliding = Sliding {
        id: "s".into(),
        expires_at: EpochSeconds(0),
    };
    client.put(&sliding).await.unwrap();
    client.delete(Sliding::key("s")).await.unwrap();
    clock.set(T0 as u64 + 600);
    let restored = client.restore(Sliding::key("s")).await.unwrap();
    assert_eq!(restored.expires_at, EpochSeconds(T0 + 600 + 3600));
    let read = client.get(Sliding::key("s")).await.unwrap().unwrap();
    assert_eq!(read.expires_at, restored.expires_at);
}

#[tokio::test]
async fn an_optional_ttl_is_put_back_or_left_out() {
    let (_t, client, _) = setup().await;
    let own = Some(EpochSeconds(T0 + 30 * DAY));
    for (id, expires_at) in [("some", own), ("none", None)] {
        let maybe = Maybe {
            id: id.into(),
            version: 0,
            expires_at,
        };
        client.create(&maybe).await.unwrap();
        client.delete(Maybe::key(id)).await.unwrap();
        let restored = client.restore(Maybe::key(id)).await.unwrap();
        assert_eq!(restored.expires_at, expires_at, "{id}");
        let read = client.get(Maybe::key(id)).await.unwrap().unwrap();
        assert_eq!(read.expires_at, expires_at, "{id}");
    }
}
