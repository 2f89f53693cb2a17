//! `backfill_unique` at its edges: soft-deleted items (their values are
//! free), items a migration moves (their sentinels move with them, a shared
//! value is reported once and never leaves an item stuck), compound and
//! optional constraints, and a writer that changes a value while the
//! backfill writes its sentinel.

use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, Entity, Error, MigrationReport, NotTenant};
use entity_tests::harness::table;
use std::future::IntoFuture;
use std::time::Duration;

/// A migration of `E` with `backfill_unique`, or its dry run.
async fn backfill<E: Entity + NotTenant + Send + 'static>(
    client: &Client,
    dry_run: bool,
) -> MigrationReport {
    client
        .migrate::<E>()
        .backfill_unique(true)
        .dry_run(dry_run)
        .await
        .unwrap()
}

/// A constrained entity with soft delete.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", name = "Member", unique(email), soft_delete)]
#[pk(id)]
#[sk()]
struct Member {
    id: String,
    email: String,
}

/// Values of a soft-deleted item are free (README); a backfill must not
/// take them again.
#[tokio::test]
async fn backfill_does_not_reclaim_values_of_soft_deleted_items() {
    let t = table(&[Member::MODEL]).await;
    let m = Member {
        id: "m1".into(),
        email: "ada@example.com".into(),
    };
    t.client.create(&m).await.unwrap();
    t.client.delete(Member::key("m1")).await.unwrap();
    // freed on delete
    assert_eq!(
        t.client
            .get_unique(Member::by_email("ada@example.com"))
            .await
            .unwrap(),
        None
    );
    let dry = backfill::<Member>(&t.client, true).await;
    let report = backfill::<Member>(&t.client, false).await;
    let taken = t
        .client
        .create(&Member {
            id: "m2".into(),
            email: "ada@example.com".into(),
        })
        .await;
    assert!(
        taken.is_ok(),
        "a soft-deleted item's freed value was taken again by the backfill: dry {:?} / real {:?}; create: {taken:?}",
        dry.counts,
        report.counts
    );
}

/// The entity before the constraint, at its old key format.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", name = "Person")]
#[pk(format = "OLD#{id}")]
#[sk(format = "P")]
struct PersonV0 {
    id: String,
    email: String,
}

/// Now: a new key format and `unique(email)`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", name = "Person", unique(email))]
#[pk(format = "NEW#{id}")]
#[sk(format = "P")]
struct Person {
    id: String,
    email: String,
}

/// Two items sharing a value, both moved by the migration: the real run
/// moves both, reports the shared value once, and a second run finds both
/// up to date (nothing stuck).
#[tokio::test]
async fn moved_items_that_share_a_value() {
    let t = table(&[Person::MODEL]).await;
    for id in ["p1", "p2"] {
        t.client
            .put(&PersonV0 {
                id: id.into(),
                email: "same@example.com".into(),
            })
            .await
            .unwrap();
    }
    let dry = backfill::<Person>(&t.client, true).await;
    let real = backfill::<Person>(&t.client, false).await;
    let again = backfill::<Person>(&t.client, false).await;
    assert_eq!(
        real.counts.unique_conflicts, 1,
        "the shared value is not reported: dry {:?}, real {:?}",
        dry.counts, real.counts
    );
    assert_eq!(real.counts.rewritten, 2, "{:?}", real.counts);
    let [conflict] = real.unique_conflicts.as_slice() else {
        panic!("{:?}", real.unique_conflicts);
    };
    assert_eq!(
        (conflict.constraint, conflict.value.as_str()),
        ("email", "same@example.com")
    );
    assert_eq!(
        again.counts.skipped_concurrent, 0,
        "stuck: {:?}",
        again.counts
    );
    assert_eq!(again.counts.up_to_date, 2, "{:?}", again.counts);
    // The value's one sentinel names one of the two, at its new key.
    let holder = t
        .client
        .get_unique(Person::by_email("same@example.com"))
        .await
        .unwrap()
        .expect("a holder");
    assert!(["p1", "p2"].contains(&holder.id.as_str()));
}

/// A moved item whose sentinel exists (naming the old key): the dry run
/// and the real run agree.
#[tokio::test]
async fn moved_item_with_a_sentinel_at_its_old_key() {
    /// Same name, old key format, already constrained.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "shop", name = "Person", unique(email))]
    #[pk(format = "OLD#{id}")]
    #[sk(format = "P")]
    struct PersonOld {
        id: String,
        email: String,
    }
    let t = table(&[Person::MODEL]).await;
    t.client
        .create(&PersonOld {
            id: "p1".into(),
            email: "a@example.com".into(),
        })
        .await
        .unwrap();
    let dry = backfill::<Person>(&t.client, true).await;
    let real = backfill::<Person>(&t.client, false).await;
    assert_eq!(dry.counts.unique_conflicts, 0);
    assert_eq!(
        real.counts.unique_conflicts, 0,
        "{:?}",
        real.unique_conflicts
    );
    assert_eq!(real.counts.rewritten, 1);
    let found = t
        .client
        .get_unique(Person::by_email("a@example.com"))
        .await
        .unwrap();
    assert_eq!(found.map(|p| p.id), Some("p1".to_owned()));
}

/// Compound and optional constraints.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", name = "Acct")]
#[pk(id)]
#[sk()]
struct AcctV0 {
    id: String,
    org: String,
    handle: String,
    phone: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "shop",
    name = "Acct",
    unique(handle(org, handle, case_insensitive), phone(phone))
)]
#[pk(id)]
#[sk()]
struct Acct {
    id: String,
    org: String,
    handle: String,
    phone: Option<String>,
}

#[tokio::test]
async fn compound_and_optional_constraints_are_backfilled() {
    let t = table(&[Acct::MODEL]).await;
    let rows = [
        ("a1", "o1", "Bob", Some("555")),
        ("a2", "o2", "bob", None),
        ("a3", "o1", "alice", None),
    ];
    for (id, org, handle, phone) in rows {
        t.client
            .put(&AcctV0 {
                id: id.into(),
                org: org.into(),
                handle: handle.into(),
                phone: phone.map(Into::into),
            })
            .await
            .unwrap();
    }
    let dry = backfill::<Acct>(&t.client, true).await;
    let real = backfill::<Acct>(&t.client, false).await;
    assert_eq!(dry.counts.sentinels_written, 4, "{:?}", dry.counts);
    assert_eq!(real.counts.sentinels_written, 4, "{:?}", real.counts);
    assert_eq!(real.counts.unique_conflicts, 0);
    let found = t
        .client
        .get_unique(Acct::by_handle("o1", "BOB"))
        .await
        .unwrap();
    assert_eq!(found.map(|a| a.id), Some("a1".to_owned()));
    let found = t.client.get_unique(Acct::by_phone("555")).await.unwrap();
    assert_eq!(found.map(|a| a.id), Some("a1".to_owned()));
    let taken = t
        .client
        .create(&Acct {
            id: "a9".into(),
            org: "o2".into(),
            handle: "BOB".into(),
            phone: None,
        })
        .await;
    assert!(
        matches!(taken, Err(Error::UniqueViolation { .. })),
        "{taken:?}"
    );
}

/// The item's value changes between the migration's read and its
/// sentinel put: the backfill must not leave a sentinel for a value no
/// item holds.
#[tokio::test]
async fn a_concurrent_value_change_leaves_no_orphan_sentinel() {
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "shop", name = "Member")]
    #[pk(id)]
    #[sk()]
    struct MemberV0 {
        id: String,
        email: String,
    }
    let t = table(&[Member::MODEL]).await;
    t.client
        .put(&MemberV0 {
            id: "m1".into(),
            email: "old@example.com".into(),
        })
        .await
        .unwrap();
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let migrating = Client::local(proxy.endpoint(), t.client.table());
    // The sentinel's write is held while the owner changes its email.
    proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::Delay(Duration::from_millis(1500))],
    );
    let migration = tokio::spawn(
        migrating
            .migrate::<Member>()
            .backfill_unique(true)
            .into_future(),
    );
    while proxy
        .faults()
        .counts(Operation::TransactWriteItems)
        .received
        == 0
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    t.client
        .put(&Member {
            id: "m1".into(),
            email: "new@example.com".into(),
        })
        .await
        .unwrap();
    let report = migration.await.unwrap().unwrap();
    // The backfill saw the value change: nothing written, no conflict.
    assert_eq!(report.counts.sentinels_written, 0, "{:?}", report.counts);
    assert!(report.unique_conflicts.is_empty(), "{report:?}");
    // Nobody holds old@example.com now.
    let holder = t
        .client
        .get_unique(Member::by_email("old@example.com"))
        .await;
    let taken = t
        .client
        .create(&Member {
            id: "m2".into(),
            email: "old@example.com".into(),
        })
        .await;
    assert!(
        taken.is_ok(),
        "old@example.com is held by an orphan sentinel (lookup: {holder:?}): {taken:?}"
    );
}
