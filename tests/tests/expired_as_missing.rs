//! An expired item DynamoDB has not deleted yet reads as missing, to reads
//! and to the writes that change an item in place: `update` and `patch`
//! fail with `NotFound` and change nothing (a transaction's update is
//! cancelled), and `rekey` finds nothing to move. Were a patch to move its
//! TTL, the item would come back holding unique values that were free
//! since it expired, and another item may hold now.

use entity_client::expr::Update;
use entity_client::{Client, Entity, EpochSeconds, Error};
use entity_tests::clock::TestClock;
use entity_tests::harness::{table, TestTable};

// In the real future (2030): a server that sweeps expired items on its own
// clock (DynamoDB Local does) never deletes a test's item mid-test.
const T0: i64 = 1_900_000_000;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "exp", unique(code))]
#[pk(id)]
#[sk()]
struct Invite {
    id: String,
    code: String,
    note: String,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

fn invite(id: &str, code: &str, expires_at: Option<i64>) -> Invite {
    Invite {
        id: id.into(),
        code: code.into(),
        note: "first".into(),
        expires_at: expires_at.map(EpochSeconds),
    }
}

/// A history entity that expires.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "exp", history)]
#[pk(id)]
#[sk()]
struct Lease {
    id: String,
    holder: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

/// A client whose clock is at `T0`, and the clock.
async fn setup() -> (TestTable, Client, TestClock) {
    let t = table(&[Invite::MODEL, Lease::MODEL]).await;
    let clock = TestClock::at(T0 as u64);
    let client = t.client.clone().with_clock(clock.clone());
    (t, client, clock)
}

/// `i1`, holding code `C`, created to expire at `T0 + 10`, and the clock
/// moved past it.
async fn expired_holder() -> (TestTable, Client, TestClock) {
    let (t, client, clock) = setup().await;
    client
        .create(&invite("i1", "C", Some(T0 + 10)))
        .await
        .unwrap();
    clock.set(T0 as u64 + 11);
    (t, client, clock)
}

fn not_found<T: std::fmt::Debug>(what: &str, result: Result<T, Error>) {
    assert!(
        matches!(result, Err(Error::NotFound { .. })),
        "{what}: {result:?}"
    );
}

#[tokio::test]
async fn an_expired_item_is_not_changed_in_place() {
    let (_t, client, _clock) = expired_holder().await;
    let f = Invite::fields();
    let later = Some(EpochSeconds(T0 + 3600));
    not_found(
        "patch",
        client
            .patch(Invite::key("i1"))
            .set(f.expires_at, later)
            .await,
    );
    not_found(
        "update",
        client
            .update(Invite::key("i1"))
            .set(f.note, "changed")
            .await,
    );
    // A transaction's update is cancelled (its condition failed).
    let update = Update::new().set(f.note, "changed");
    let cancelled = client
        .transact_write()
        .update(Invite::key("i1"), update, None)
        .await;
    assert!(cancelled.is_err(), "transaction update: {cancelled:?}");
    let stored = client.get(Invite::key("i1")).include_expired(true).await;
    let stored = stored.unwrap().expect("still stored");
    assert_eq!(
        (stored.note.as_str(), stored.expires_at),
        ("first", Some(EpochSeconds(T0 + 10)))
    );
    // Its key is free to `put` a new item at, as the docs say.
    client.put(&invite("i1", "D", None)).await.unwrap();
    let put = client.get(Invite::key("i1")).await.unwrap().expect("live");
    assert_eq!(put.code, "D");
}

#[tokio::test]
async fn a_patch_cannot_bring_back_a_holder_whose_value_another_took() {
    let (_t, client, _clock) = expired_holder().await;
    // The expired holder's value is free: another item takes it.
    client.create(&invite("i2", "C", None)).await.unwrap();
    let f = Invite::fields();
    let later = Some(EpochSeconds(T0 + 3600));
    not_found(
        "patch",
        client
            .patch(Invite::key("i1"))
            .set(f.expires_at, later)
            .await,
    );
    assert_eq!(client.get(Invite::key("i1")).await.unwrap(), None);
    let holder = client.get_unique(Invite::by_code("C")).await.unwrap();
    assert_eq!(holder.map(|i| i.id).as_deref(), Some("i2"));
}

#[tokio::test]
async fn an_expired_item_is_not_moved_nor_changed_with_its_history() {
    let (_t, client, clock) = setup().await;
    let lease = Lease {
        id: "l1".into(),
        holder: "ada".into(),
        version: 0,
        expires_at: Some(EpochSeconds(T0 + 10)),
    };
    let lease = client.create(&lease).await.unwrap();
    clock.set(T0 as u64 + 11);
    let f = Lease::fields();
    not_found(
        "patch",
        client.patch(Lease::key("l1")).set(f.holder, "grace").await,
    );
    let moved = Lease {
        id: "l2".into(),
        ..lease
    };
    not_found("rekey", client.rekey(Lease::key("l1"), &moved).await);
    assert_eq!(client.get(Lease::key("l2")).await.unwrap(), None);
    // No snapshot was written: read before the item (and its snapshot,
    // which carries its TTL) expired, its history is its first version.
    clock.set(T0 as u64);
    let history = client.history(Lease::key("l1")).consistent_read(true);
    let versions: Vec<u64> = history
        .all()
        .await
        .unwrap()
        .iter()
        .map(|l| l.version)
        .collect();
    assert_eq!(versions, [1]);
}
