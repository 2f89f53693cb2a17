//! A unique constraint added to an entity that already has items: the
//! migration runner's `backfill_unique` writes each item's missing
//! sentinels, leaves the ones it has, and reports a value two items share
//! (with both keys) instead of picking one; a dry run writes nothing.

use entity_client::{Entity, UniqueConflict};
use entity_tests::harness::table;

/// The entity before the constraint: no sentinels are written.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", name = "Customer")]
#[pk(id)]
#[sk()]
struct Before {
    id: String,
    email: String,
}

/// The same entity with `unique(email, case_insensitive)`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", name = "Customer", unique(email, case_insensitive))]
#[pk(id)]
#[sk()]
struct Customer {
    id: String,
    email: String,
}

fn before(id: &str, email: &str) -> Before {
    Before {
        id: id.into(),
        email: email.into(),
    }
}

fn customer(id: &str, email: &str) -> Customer {
    Customer {
        id: id.into(),
        email: email.into(),
    }
}

#[tokio::test]
async fn a_migration_backfills_sentinels_and_reports_shared_values() {
    let t = table(&[Customer::MODEL]).await;
    for (id, email) in [
        ("c1", "ada@example.com"),
        ("c2", "grace@example.com"),
        ("c3", "ADA@example.com"), // the same value, case-insensitively
        ("c4", "linus@example.com"),
    ] {
        t.client.put(&before(id, email)).await.unwrap();
    }
    // c4 was created through the new definition: it has its sentinel.
    t.client
        .create(&customer("c5", "ken@example.com"))
        .await
        .unwrap();
    assert_eq!(
        t.client
            .get_unique(Customer::by_email("grace@example.com"))
            .await
            .unwrap(),
        None,
        "no sentinel before the backfill"
    );

    let dry = t
        .client
        .migrate::<Customer>()
        .backfill_unique(true)
        .dry_run(true)
        .await
        .unwrap();
    // A dry run sees four values without a sentinel (ada counted by both
    // of its holders: neither has it yet) and no conflict.
    assert_eq!(dry.counts.sentinels_written, 4, "{dry:?}");
    assert_eq!(dry.counts.unique_conflicts, 0, "{dry:?}");
    assert_eq!(
        t.client
            .get_unique(Customer::by_email("grace@example.com"))
            .await
            .unwrap(),
        None,
        "a dry run writes nothing"
    );

    let report = t
        .client
        .migrate::<Customer>()
        .backfill_unique(true)
        .await
        .unwrap();
    assert_eq!(report.counts.scanned, 5, "{report:?}");
    // ada (one of c1, c3), grace, linus; ken had its own.
    assert_eq!(report.counts.sentinels_written, 3, "{report:?}");
    assert_eq!(report.counts.unique_conflicts, 1, "{report:?}");
    let [UniqueConflict {
        constraint,
        value,
        key,
        owner,
    }] = report.unique_conflicts.as_slice()
    else {
        panic!("one conflict: {report:?}");
    };
    assert_eq!((*constraint, value.as_str()), ("email", "ada@example.com"));
    let id = |item: &entity_client::Item| Customer::parse_pk(item["pk"].as_s().unwrap()).unwrap().0;
    let (left_out, holder) = (id(key), id(owner.as_ref().expect("the owner")));
    let mut both = [left_out.clone(), holder.clone()];
    both.sort();
    assert_eq!(both, ["c1".to_owned(), "c3".to_owned()]);

    for (email, expected) in [
        (
            "grace@example.com",
            Some(customer("c2", "grace@example.com")),
        ),
        (
            "Linus@Example.com",
            Some(customer("c4", "linus@example.com")),
        ),
        ("ken@example.com", Some(customer("c5", "ken@example.com"))),
    ] {
        let found = t
            .client
            .get_unique(Customer::by_email(email))
            .await
            .unwrap();
        assert_eq!(found, expected, "{email}");
    }
    let ada = t
        .client
        .get_unique(Customer::by_email("ada@example.com"))
        .await
        .unwrap()
        .expect("ada's holder");
    assert_eq!(ada.id, holder, "the sentinel names the reported owner");

    // Now the constraint holds for new writes.
    let taken = t.client.create(&customer("c6", "GRACE@example.com")).await;
    assert!(
        matches!(taken, Err(entity_client::Error::UniqueViolation { .. })),
        "{taken:?}"
    );

    // A second run writes nothing more and reports the same conflict.
    let again = t
        .client
        .migrate::<Customer>()
        .backfill_unique(true)
        .await
        .unwrap();
    assert_eq!(again.counts.sentinels_written, 0, "{again:?}");
    assert_eq!(again.unique_conflicts, report.unique_conflicts);
}

/// Without `backfill_unique` a migration reads no sentinel and writes none.
#[tokio::test]
async fn without_the_option_no_sentinel_is_written() {
    let t = table(&[Customer::MODEL]).await;
    t.client
        .put(&before("c1", "ada@example.com"))
        .await
        .unwrap();
    let report = t.client.migrate::<Customer>().await.unwrap();
    assert_eq!(report.counts.sentinels_written, 0);
    assert!(report.unique_conflicts.is_empty());
    assert_eq!(
        t.client
            .get_unique(Customer::by_email("ada@example.com"))
            .await
            .unwrap(),
        None
    );
}
