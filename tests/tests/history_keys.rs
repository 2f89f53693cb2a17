//! A history entity's snapshots are stored at `<sk>@<ten digits>` in the
//! item's partition, so an item whose own sort key ends that way would
//! share its key with another item's snapshot: a put would replace the
//! snapshot, a delete would delete it. Every operation refuses such a key
//! before sending anything; keys that only look close are written.

use entity_client::{Entity, Error, ValidationError};
use entity_tests::harness::table;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "hk", history)]
#[pk(id)]
#[sk(rev)]
struct Page {
    id: String,
    rev: String,
    body: String,
    #[entity(version)]
    version: u64,
}

fn page(rev: &str, version: u64) -> Page {
    Page {
        id: "a".into(),
        rev: rev.into(),
        body: format!("{rev} at {version}"),
        version,
    }
}

/// The snapshot key of `r`'s version 1, as a page's own sort key.
const SNAPSHOT: &str = "r@0000000001";

fn refused<T: std::fmt::Debug>(what: &str, result: Result<T, Error>) {
    match result {
        Err(Error::Validation(ValidationError::SnapshotKey { ref value, .. }))
            if value.ends_with(SNAPSHOT) => {}
        other => panic!("{what}: {other:?}"),
    }
}

#[tokio::test]
async fn a_key_that_ends_as_a_snapshots_is_refused_by_every_operation() {
    let t = table(&[Page::MODEL]).await;
    let c = &t.client;
    c.create(&page("r", 0)).await.unwrap();
    c.put(&page("r", 1)).await.unwrap();
    let f = Page::fields();
    refused("create", c.create(&page(SNAPSHOT, 0)).await);
    refused("put", c.put(&page(SNAPSHOT, 1)).await);
    refused("get", c.get(Page::key("a", SNAPSHOT)).await);
    refused("delete", c.delete(Page::key("a", SNAPSHOT)).await);
    refused(
        "patch",
        c.patch(Page::key("a", SNAPSHOT)).set(f.body, "x").await,
    );
    refused(
        "transaction put",
        c.transact_write().put(&page(SNAPSHOT, 1)).await,
    );
    refused(
        "transaction delete",
        c.transact_write()
            .delete(Page::key("a", SNAPSHOT), None)
            .await,
    );
    let stored = c.get(Page::key("a", "r")).await.unwrap().unwrap();
    refused(
        "rekey",
        c.rekey(
            Page::key("a", "r"),
            &Page {
                rev: SNAPSHOT.into(),
                ..stored
            },
        )
        .await,
    );
    // `r`'s history is whole: nothing wrote over its snapshots.
    let history = c.history(Page::key("a", "r")).all().await.unwrap();
    let versions: Vec<u64> = history.iter().map(|p| p.version).collect();
    assert_eq!(versions, [2, 1]);
}

#[tokio::test]
async fn keys_that_only_look_close_are_written() {
    let t = table(&[Page::MODEL]).await;
    // Nine digits, eleven digits, another separator, digits alone.
    for rev in ["r@000000001", "r@00000000001", "r#0000000001", "0000000001"] {
        let written = t.client.create(&page(rev, 0)).await;
        assert!(written.is_ok(), "{rev}: {written:?}");
        let read = t.client.get(Page::key("a", rev)).await.unwrap();
        assert_eq!(read.map(|p| p.rev), Some(rev.to_owned()));
    }
}
