//! Tenant transactions with versioned, soft-delete and history entities:
//! snapshots are written (and never over another entity's item), what a
//! transaction cannot do for such an entity is refused before sending,
//! guard failures mixed with the tenant's own condition failures never hand
//! over the foreign item, and a read transaction never returns one.

mod common;

use common::stored_at;
use entity_client::expr::Update;
use entity_client::{Entity, Error};
use entity_tests::harness::table;
use entity_tests::tenancy::{Journal, Memo, Note};

fn journal(tenant: &str, id: &str, text: &str, version: u64) -> Journal {
    Journal {
        tenant_id: tenant.into(),
        id: id.into(),
        text: text.into(),
        version,
    }
}

fn memo(tenant: &str, id: &str, text: &str) -> Memo {
    Memo {
        tenant_id: tenant.into(),
        id: id.into(),
        text: text.into(),
    }
}

fn note(tenant: &str, id: &str, text: &str) -> Note {
    Note {
        tenant_id: tenant.into(),
        id: id.into(),
        text: text.into(),
    }
}

async fn raw(client: &entity_client::Client, pk: &str, sk: &str) -> Option<entity_client::Item> {
    client
        .sdk()
        .get_item()
        .table_name(client.table())
        .key("pk", common::s(pk))
        .key("sk", common::s(sk))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
}

/// A history entity written through a tenant transaction: it works, and
/// its snapshot is written.
#[tokio::test]
async fn tenant_transaction_with_history_entity_writes_snapshot() {
    let t = table(&[Journal::MODEL]).await;
    let acme = t.client.tenant("acme");
    let r = acme
        .transact_write()
        .create(&journal("acme", "j1", "one", 0))
        .await;
    assert!(r.is_ok(), "{r:?}");
    let snap = raw(&t.client, "ORG#acme", "j1@0000000001").await;
    assert!(snap.is_some(), "no snapshot");
    // versioned put through a tenant transaction
    let r = acme
        .transact_write()
        .put(&journal("acme", "j1", "two", 1))
        .await;
    assert!(r.is_ok(), "{r:?}");
    let got = acme.get(Journal::tenant_key("j1")).await.unwrap().unwrap();
    assert_eq!(got.version, 2);
    assert!(raw(&t.client, "ORG#acme", "j1@0000000002").await.is_some());
    // stale version: a canceled transaction on the tenant's own item
    let r = acme
        .transact_write()
        .put(&journal("acme", "j1", "stale", 1))
        .await;
    assert!(
        matches!(
            r,
            Err(Error::TransactionCanceled { .. }) | Err(Error::VersionConflict { .. })
        ),
        "{r:?}"
    );
}

/// A transaction's update of a history entity is refused before sending:
/// its snapshot needs the stored item, which a transaction cannot read
/// first (`client.update` writes it). A transaction's delete of a soft
/// delete entity does not compile: it would remove the item for good.
#[tokio::test]
async fn a_transaction_refuses_what_it_cannot_do_for_history_and_soft_delete() {
    let t = table(&[Journal::MODEL]).await;
    let acme = t.client.tenant("acme");
    acme.create(&journal("acme", "j1", "one", 0)).await.unwrap();
    let f = Journal::fields();
    let r = acme
        .transact_write()
        .update(
            Journal::tenant_key("j1"),
            Update::new().set(f.text, "two"),
            None,
        )
        .await;
    assert!(
        matches!(&r, Err(Error::Validation(e)) if e.to_string().contains("keeps history")),
        "{r:?}"
    );
    // A delete of a soft-delete entity in a transaction does not compile
    // (tests/ui/lifecycle/tenant_transact_delete_soft_delete.rs).
    // Nothing was written: version 1, one snapshot, the item in place.
    let got = acme.get(Journal::tenant_key("j1")).await.unwrap().unwrap();
    assert_eq!((got.version, got.text.as_str()), (1, "one"));
    assert!(raw(&t.client, "ORG#acme", "j1@0000000002").await.is_none());
    // The single-item calls do both.
    acme.update(Journal::tenant_key("j1"))
        .set(f.text, "two")
        .await
        .unwrap();
    assert!(raw(&t.client, "ORG#acme", "j1@0000000002").await.is_some());
    acme.delete(Journal::tenant_key("j1")).await.unwrap();
    acme.restore(Journal::tenant_key("j1")).await.unwrap();
}

/// The snapshot a tenant transaction writes at `<sk>@<version>` is guarded
/// like the item: tenant Xacme's Journal j1 snapshot key is acme's Memo
/// `j1@0000000001`, so the transaction is `TenantMismatch` and acme's memo
/// stays as it was.
#[tokio::test]
async fn tenant_transaction_history_snapshot_cannot_overwrite_another_tenants_item() {
    let t = table(&[Journal::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    let secret = memo("acme", "j1@0000000001", "acme's secret");
    acme.put(&secret).await.unwrap();
    let before = stored_at(&t.client, "ORG#Xacme", "j1@0000000001").await;

    let intruder = t.client.tenant("Xacme");
    let r = intruder
        .transact_write()
        .create(&journal("Xacme", "j1", "mine", 0))
        .await;
    let after = raw(&t.client, "ORG#Xacme", "j1@0000000001").await;
    assert_eq!(
        after.as_ref(),
        Some(&before),
        "tenant Xacme's transaction ({r:?}) overwrote acme's memo with its snapshot"
    );
    assert!(
        matches!(r, Err(Error::TenantMismatch { found: None, .. })),
        "{r:?}"
    );
    assert_eq!(
        acme.get(Memo::tenant_key("j1@0000000001")).await.unwrap(),
        Some(secret)
    );
}

/// The same through the tenant client's single create.
#[tokio::test]
async fn tenant_single_create_history_snapshot_cannot_overwrite_another_tenants_item() {
    let t = table(&[Journal::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    let secret = memo("acme", "j1@0000000001", "acme's secret");
    acme.put(&secret).await.unwrap();
    let before = stored_at(&t.client, "ORG#Xacme", "j1@0000000001").await;
    let intruder = t.client.tenant("Xacme");
    let r = intruder.create(&journal("Xacme", "j1", "mine", 0)).await;
    let after = raw(&t.client, "ORG#Xacme", "j1@0000000001").await;
    assert_eq!(
        after.as_ref(),
        Some(&before),
        "tenant Xacme's create ({r:?}) overwrote acme's memo with its snapshot"
    );
    assert!(
        matches!(r, Err(Error::TenantMismatch { found: None, .. })),
        "{r:?}"
    );
    // Nothing of Xacme's was written either.
    assert_eq!(intruder.get(Journal::tenant_key("j1")).await.unwrap(), None);
}

/// Own condition failure and a guard failure in one transaction: the
/// result never hands over the foreign item.
#[tokio::test]
async fn own_condition_failure_with_guard_failure_never_leaks() {
    let t = table(&[Note::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    acme.put(&memo("acme", "m1", "acme's secret"))
        .await
        .unwrap();
    let intruder = t.client.tenant("Xacme");
    intruder.put(&note("Xacme", "n1", "own")).await.unwrap();
    let f = Note::fields();
    for order in 0..2 {
        let tx = intruder.transact_write();
        let tx = if order == 0 {
            tx.update(
                Note::tenant_key("n1"),
                Update::new().set(f.text, "x"),
                Some(f.text.eq("nope")),
            )
            .delete(Note::tenant_key("m1"), None)
        } else {
            tx.delete(Note::tenant_key("m1"), None).update(
                Note::tenant_key("n1"),
                Update::new().set(f.text, "x"),
                Some(f.text.eq("nope")),
            )
        };
        let r = tx.await;
        let leaked = format!("{r:?}").contains("acme's secret");
        assert!(!leaked, "order {order}: leaked: {r:?}");
        assert!(
            matches!(&r, Err(Error::TenantMismatch { found: None, .. })),
            "order {order}: {r:?}"
        );
    }
    // create over the foreign item: what error, and no leak
    let r = intruder
        .transact_write()
        .create(&note("Xacme", "m1", "x"))
        .await;
    assert!(!format!("{r:?}").contains("acme's secret"), "{r:?}");
    // condition_check over the foreign item with a condition the foreign item meets
    let r = intruder
        .transact_write()
        .condition_check(Note::tenant_key("m1"), f.text.eq("acme's secret"))
        .await;
    assert!(!format!("{r:?}").contains("acme's secret"), "{r:?}");
    assert!(r.is_err(), "condition_check passed on acme's memo");
}

/// A repeated key in a tenant transaction, also through a snapshot key.
#[tokio::test]
async fn repeated_keys_and_limits() {
    // One table for `Journal` and `Note`, which `create_table` would refuse
    // together (one key format): made for `Journal`, Note's items go in it.
    let t = table(&[Journal::MODEL]).await;
    let acme = t.client.tenant("acme");
    let r = acme
        .transact_write()
        .put(&note("acme", "n1", "a"))
        .delete(Note::tenant_key("n1"), None)
        .await;
    assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    // 51 history creates = 102 items
    let mut tx = acme.transact_write();
    for i in 0..51 {
        tx = tx.create(&journal("acme", &format!("j{i}"), "x", 0));
    }
    assert_eq!(tx.len(), 102);
    let r = tx.await;
    assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    // idempotency token reused with another content
    let token = format!("tok-review-{}", t.client.table());
    acme.transact_write()
        .put(&note("acme", "n2", "a"))
        .idempotency_token(token.clone())
        .await
        .unwrap();
    let r = acme
        .transact_write()
        .put(&note("acme", "n2", "b"))
        .idempotency_token(token.clone())
        .await;
    assert!(matches!(r, Err(Error::TokenReused { .. })), "{r:?}");
}

/// The plain client's transactions refuse the same two writes.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "PlainJournal", soft_delete, history)]
#[pk(format = "PJ#{id}")]
#[sk(format = "j")]
struct PlainJournal {
    id: String,
    text: String,
    #[entity(version)]
    version: u64,
}

#[tokio::test]
async fn a_plain_transaction_refuses_them_too() {
    let t = table(&[PlainJournal::MODEL]).await;
    let j = PlainJournal {
        id: "a".into(),
        text: "one".into(),
        version: 0,
    };
    t.client.create(&j).await.unwrap();
    let f = PlainJournal::fields();
    let r = t
        .client
        .transact_write()
        .update(
            PlainJournal::key("a"),
            Update::new().set(f.text, "two"),
            None,
        )
        .await;
    assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    // Its delete does not compile (tests/ui/lifecycle/transact_delete_soft_delete.rs).
    assert!(raw(&t.client, "PJ#a", "j").await.is_some());
}

/// A tenant read transaction over a key another entity's item holds (an
/// overlapping format) is `TenantMismatch`, without acme's item.
#[tokio::test]
async fn tenant_transact_get_does_not_hand_over_another_tenants_item() {
    let t = table(&[Note::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    acme.put(&memo("acme", "m1", "acme's secret"))
        .await
        .unwrap();
    let intruder = t.client.tenant("Xacme");
    let out = intruder.transact_get().get(Note::tenant_key("m1")).await;
    let shown = format!("{out:?}");
    assert!(
        !shown.contains("acme's secret"),
        "tenant Xacme's transact_get returned acme's memo: {shown}"
    );
    assert!(
        matches!(out, Err(Error::TenantMismatch { found: None, .. })),
        "{shown}"
    );
}
