//! The lifecycle of items, end to end: expired items hidden before the
//! server deletes them, soft delete (out of every index, skipped by reads,
//! restorable, purgeable, unique values freed and retaken), and version
//! history (`SK@n` snapshots, retention, newest-first reads, never read as
//! the entity).

mod common;

use common::{scan_raw, stored};
use entity_client::{Client, Entity, EpochSeconds, Error};
use entity_tests::clock::TestClock;
use entity_tests::harness::{table, TestTable};

/// A document: TTL, soft delete that expires after 30 days, history of the
/// last 3 versions, a unique slug, an index by owner.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "life",
    soft_delete(expire_after = "30d"),
    history(keep = 3),
    unique(slug)
)]
#[pk(doc_id)]
#[sk()]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(title)))]
struct Doc {
    doc_id: String,
    owner: String,
    title: String,
    slug: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

/// A long history: every version kept.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "life", history)]
#[pk(page_id)]
#[sk()]
struct Page {
    page_id: String,
    body: String,
    #[entity(version)]
    version: u64,
}

/// Snapshots that expire a day after they are written.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "life", history(expire_after = "1d"))]
#[pk(note_id)]
#[sk()]
struct Note {
    note_id: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

// In the real future (2030): a server that sweeps expired items on its own
// clock (DynamoDB Local does) never deletes a test's item mid-test.
const T0: u64 = 1_900_000_000;

fn doc(id: &str, title: &str, slug: &str) -> Doc {
    Doc {
        doc_id: id.into(),
        owner: "ada".into(),
        title: title.into(),
        slug: slug.into(),
        version: 0,
        expires_at: None,
    }
}

async fn setup() -> (TestTable, Client, TestClock) {
    let t = table(&[Doc::MODEL, Page::MODEL, Note::MODEL]).await;
    let clock = TestClock::at(T0);
    let client = t.client.clone().with_clock(clock.clone());
    (t, client, clock)
}

async fn owned_by_ada(client: &Client) -> Vec<String> {
    let page = client.query(Doc::by_owner("ada")).await.unwrap();
    page.items.into_iter().map(|d| d.doc_id).collect()
}

// ---- TTL ---------------------------------------------------------------

/// A TTL left at 0 would hide the item at once; one in milliseconds would
/// never expire: both refused before sending, naming the fix.
#[tokio::test]
async fn a_ttl_of_zero_or_in_milliseconds_is_refused_before_sending() {
    let (t, client, _) = setup().await;
    for (value, says) in [
        (0, "EpochSeconds::default()"),
        (-5, "before 1970"),
        ((T0 as i64) * 1000, "divide by 1000"),
    ] {
        let mut d = doc("d1", "Draft", "draft");
        d.expires_at = Some(EpochSeconds(value));
        let err = client.put(&d).await.unwrap_err();
        match &err {
            Error::Validation(entity_client::ValidationError::Ttl {
                field, value: v, ..
            }) => assert_eq!((*field, *v), ("expires_at", value)),
            other => panic!("{value}: {other:?}"),
        }
        assert!(err.to_string().contains(says), "{err}");
        assert_eq!(stored(&t.client, &Doc::key("d1")).await, None);
    }
    let mut d = doc("d1", "Draft", "draft");
    d.expires_at = Some(EpochSeconds(T0 as i64 + 60));
    client
        .put(&d)
        .await
        .expect("a TTL in seconds, in the future");
}

#[tokio::test]
async fn an_expired_item_is_hidden_before_the_server_deletes_it() {
    let (t, client, clock) = setup().await;
    let mut d = doc("d1", "Notes", "notes");
    d.expires_at = Some(EpochSeconds(T0 as i64 + 10));
    client.create(&d).await.unwrap();
    assert!(client.get(Doc::key("d1")).await.unwrap().is_some());

    clock.set(T0 + 11);

    assert_eq!(client.get(Doc::key("d1")).await.unwrap(), None);
    assert!(owned_by_ada(&client).await.is_empty());
    assert!(client.scan::<Doc>().await.unwrap().items.is_empty());
    let batch = client.batch_get([Doc::key("d1")]).await.unwrap();
    assert!(batch.items.is_empty());
    assert!(
        stored(&t.client, &Doc::key("d1")).await.is_some(),
        "still stored"
    );
    let shown = client
        .get(Doc::key("d1"))
        .include_expired(true)
        .await
        .unwrap();
    assert_eq!(shown.map(|d| d.doc_id).as_deref(), Some("d1"));
    let queried = client
        .query(Doc::by_owner("ada"))
        .include_expired(true)
        .await
        .unwrap();
    assert_eq!(queried.items.len(), 1);
}

// ---- soft delete --------------------------------------------------------

#[tokio::test]
async fn a_soft_deleted_item_is_in_no_index_and_no_read_until_restored() {
    let (t, client, clock) = setup().await;
    client.create(&doc("d1", "Notes", "notes")).await.unwrap();
    client.create(&doc("d2", "Plans", "plans")).await.unwrap();
    let key = || Doc::key("d1");

    clock.set(T0 + 100);
    client.delete(key()).await.unwrap();

    let raw = stored(&t.client, &key()).await.unwrap();
    assert!(
        !raw.contains_key("gsi1pk") && !raw.contains_key("gsi1sk"),
        "out of the index: {raw:?}"
    );
    assert!(raw.contains_key("__deleted_at"));
    let ttl = raw["expires_at"].as_n().unwrap();
    assert_eq!(
        ttl,
        &(T0 + 100 + 30 * 86_400).to_string(),
        "expires 30 days later"
    );
    assert_eq!(client.get(key()).await.unwrap(), None);
    assert_eq!(owned_by_ada(&client).await, ["d2"]);
    assert!(client
        .get(key())
        .include_deleted(true)
        .await
        .unwrap()
        .is_some());
    let deleted = client.scan::<Doc>().only_deleted().all().await.unwrap();
    assert_eq!(
        deleted
            .iter()
            .map(|d| d.doc_id.as_str())
            .collect::<Vec<_>>(),
        ["d1"]
    );

    // Deleting again is nothing to do; removing again is not found.
    client.delete(key()).await.unwrap();
    let err = client.remove(key()).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Doc" }), "{err:?}");

    let restored = client.restore(key()).await.unwrap();
    assert_eq!(restored.expires_at, None, "the delete's TTL is gone");
    assert_eq!(client.get(key()).await.unwrap(), Some(restored.clone()));
    let mut owned = owned_by_ada(&client).await;
    owned.sort();
    assert_eq!(owned, ["d1", "d2"], "back in the index");
    let raw = stored(&t.client, &key()).await.unwrap();
    assert!(!raw.contains_key("__deleted_at"));
    assert!(matches!(
        client.restore(key()).await.unwrap_err(),
        Error::NotFound { .. }
    ));
}

#[tokio::test]
async fn a_soft_delete_frees_unique_values_and_a_restore_takes_them_again() {
    let (_t, client, _) = setup().await;
    client.create(&doc("d1", "Notes", "notes")).await.unwrap();
    client.delete(Doc::key("d1")).await.unwrap();
    assert_eq!(
        client.get_unique(Doc::by_slug("notes")).await.unwrap(),
        None
    );

    let taken = client.create(&doc("d2", "Other", "notes")).await.unwrap();
    let err = client.restore(Doc::key("d1")).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::UniqueViolation {
                constraint: "slug",
                ..
            }
        ),
        "{err:?}"
    );

    client.purge(Doc::key("d2")).await.unwrap();
    assert_eq!(
        client
            .get(Doc::key("d2"))
            .include_deleted(true)
            .await
            .unwrap(),
        None
    );
    let restored = client.restore(Doc::key("d1")).await.unwrap();
    assert_eq!(
        client.get_unique(Doc::by_slug("notes")).await.unwrap(),
        Some(restored)
    );
    let _ = taken;
}

#[tokio::test]
async fn purge_deletes_a_soft_deleted_item_for_good() {
    let (t, client, _) = setup().await;
    client.create(&doc("d1", "Notes", "notes")).await.unwrap();
    client.delete(Doc::key("d1")).await.unwrap();

    client.purge(Doc::key("d1")).await.unwrap();

    assert_eq!(stored(&t.client, &Doc::key("d1")).await, None);
    let live: Vec<_> = scan_raw(&t.client)
        .await
        .into_iter()
        .filter(|item| item["__entity"].as_s().unwrap() == "Doc")
        .collect();
    assert!(live.is_empty());
}

// ---- history ------------------------------------------------------------

#[tokio::test]
async fn every_write_stores_a_snapshot_and_keep_holds_exactly_the_last_n() {
    let (_t, client, _) = setup().await;
    let v1 = client.create(&doc("d1", "v1", "s")).await.unwrap();
    let mut v2 = v1.clone();
    v2.title = "v2".into();
    let v2 = client.put(&v2).await.unwrap();
    client
        .patch(Doc::key("d1"))
        .set(Doc::fields().expires_at, Some(EpochSeconds(2_000_000_000)))
        .await
        .unwrap();
    let mut v4 = client.get(Doc::key("d1")).await.unwrap().unwrap();
    v4.title = "v4".into();
    let v4 = client.upsert(&v4).await.unwrap();

    let history = client.history(Doc::key("d1")).all().await.unwrap();

    let versions: Vec<u64> = history.iter().map(|d| d.version).collect();
    assert_eq!(versions, [4, 3, 2], "newest first, the last three kept");
    assert_eq!(history[0], v4);
    assert_eq!(history[2], v2);
    assert_eq!(
        client.history(Doc::key("d1")).version(1).await.unwrap(),
        None,
        "version 1 fell out"
    );
    let v3 = client
        .history(Doc::key("d1"))
        .version(3)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v3.expires_at, Some(EpochSeconds(2_000_000_000)));
    assert_eq!(
        client.history(Doc::key("d1")).latest().await.unwrap(),
        Some(v4)
    );
    let _ = v1;
}

/// An item deleted for good leaves its snapshots, read while no item is at
/// the key; a new item there starts again at version 1, and its history is
/// its own, never mixed with the earlier item's.
#[tokio::test]
async fn a_new_item_at_a_key_deleted_for_good_has_only_its_own_history() {
    let (_t, client, _) = setup().await;
    let versions = |history: Vec<Page>| -> Vec<(u64, String)> {
        history.into_iter().map(|p| (p.version, p.body)).collect()
    };
    let mut page = Page {
        page_id: "p1".into(),
        body: String::new(),
        version: 0,
    };
    for body in ["a", "b", "c", "d"] {
        page.body = body.into();
        page = client.put(&page).await.unwrap();
    }
    client.delete(Page::key("p1")).await.unwrap();
    let left = client.history(Page::key("p1")).all().await.unwrap();
    assert_eq!(left.len(), 4, "the deleted item's history, read");

    let again = Page {
        page_id: "p1".into(),
        body: "again".into(),
        version: 0,
    };
    let again = client.create(&again).await.unwrap();
    assert_eq!(again.version, 1);
    let history = client.history(Page::key("p1")).all().await.unwrap();
    assert_eq!(versions(history), [(1, "again".to_owned())]);
    let latest = client.history(Page::key("p1")).latest().await.unwrap();
    assert_eq!(latest, Some(again.clone()));
    let third = client.history(Page::key("p1")).version(3).await.unwrap();
    assert_eq!(third, None, "the earlier item's version 3");
    let mut next = again;
    next.body = "again 2".into();
    client.put(&next).await.unwrap();
    let history = client.history(Page::key("p1")).all().await.unwrap();
    assert_eq!(
        versions(history),
        [(2, "again 2".to_owned()), (1, "again".to_owned())]
    );

    // Purged, with `keep = 3`: the new item's history is its one version.
    let mut d = client.create(&doc("d1", "v1", "s")).await.unwrap();
    for title in ["v2", "v3", "v4"] {
        d.title = title.into();
        d = client.put(&d).await.unwrap();
    }
    client.purge(Doc::key("d1")).await.unwrap();
    let d = client.create(&doc("d1", "new", "s")).await.unwrap();
    let history = client.history(Doc::key("d1")).all().await.unwrap();
    assert_eq!(history, [d]);
}

#[tokio::test]
async fn snapshots_sort_by_version_and_never_read_as_the_entity() {
    let (t, client, _) = setup().await;
    let mut page = client
        .create(&Page {
            page_id: "p1".into(),
            body: "0".into(),
            version: 0,
        })
        .await
        .unwrap();
    for i in 1..12 {
        page.body = i.to_string();
        page = client.put(&page).await.unwrap();
    }

    let versions: Vec<u64> = client
        .history(Page::key("p1"))
        .all()
        .await
        .unwrap()
        .iter()
        .map(|p| p.version)
        .collect();
    assert_eq!(versions, (1..=12).rev().collect::<Vec<u64>>(), "10 after 9");
    assert_eq!(client.scan::<Page>().all().await.unwrap(), [page.clone()]);
    assert_eq!(
        client.query(Page::primary("p1")).all().await.unwrap(),
        [page]
    );
    assert_eq!(
        scan_raw(&t.client).await.len(),
        13,
        "the item and 12 snapshots"
    );
}

#[tokio::test]
async fn a_soft_delete_and_a_restore_are_versions_in_the_history() {
    let (_t, client, _) = setup().await;
    client.create(&doc("d1", "Notes", "notes")).await.unwrap();
    client.delete(Doc::key("d1")).await.unwrap();
    let restored = client.restore(Doc::key("d1")).await.unwrap();

    let history = client.history(Doc::key("d1")).all().await.unwrap();

    let versions: Vec<u64> = history.iter().map(|d| d.version).collect();
    assert_eq!(versions, [3, 2, 1]);
    assert_eq!(history[0], restored);
}

#[tokio::test]
async fn snapshots_expire_after_the_declared_time_and_the_live_item_does_not() {
    let (t, client, _) = setup().await;
    client
        .create(&Note {
            note_id: "n1".into(),
            version: 0,
            expires_at: None,
        })
        .await
        .unwrap();

    let items = scan_raw(&t.client).await;
    let snapshot = items
        .iter()
        .find(|item| item["__entity"].as_s().unwrap() == "Note#history")
        .expect("a snapshot");
    assert_eq!(
        snapshot["expires_at"].as_n().unwrap(),
        &(T0 + 86_400).to_string()
    );
    let live = stored(&t.client, &Note::key("n1")).await.unwrap();
    assert!(!live.contains_key("expires_at"));
    let sk = snapshot["sk"].as_s().unwrap();
    assert!(sk.ends_with("@0000000001"), "{sk}");
}
