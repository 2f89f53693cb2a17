//! Transactions of a tenant client: tenant-free keys completed with the
//! tenant, another tenant's entities and keys refused before sending, and
//! every write guarded so that a tenant whose keys another entity's format
//! also spells cannot reach that entity's items inside a transaction.

mod common;

use common::stored_at;
use entity_client::expr::Update;
use entity_client::{Entity, Error};
use entity_tests::harness::table;
use entity_tests::tenancy::{product, Memo, Note, Product};

fn note(tenant: &str, id: &str, text: &str) -> Note {
    Note {
        tenant_id: tenant.into(),
        id: id.into(),
        text: text.into(),
    }
}

fn mismatch(
    result: &Result<impl std::fmt::Debug, Error>,
    expected: &str,
    found: Option<&str>,
) -> bool {
    matches!(result, Err(Error::TenantMismatch { expected: e, found: f }) if e == expected && f.as_deref() == found)
}

#[tokio::test]
async fn a_tenant_transaction_writes_and_reads_only_its_tenants_items() {
    let t = table(&[Product::MODEL, Note::MODEL]).await;
    let acme = t.client.tenant("acme");
    let globex = t.client.tenant("globex");
    acme.transact_write()
        .put(&product("acme", "p1", "tools", 5))
        .create(&note("acme", "n1", "first"))
        .await
        .unwrap();
    globex
        .put(&product("globex", "p1", "tools", 5))
        .await
        .unwrap();

    let f = Note::fields();
    let fp = Product::fields();
    acme.transact_write()
        .update(
            Note::tenant_key("n1"),
            Update::new().set(f.text, "second"),
            Some(f.text.eq("first")),
        )
        .condition_check(Product::tenant_key("p1"), fp.price.gt(0u32))
        .delete(Product::tenant_key("p2"), None)
        .idempotency_token("acme-tx-1")
        .await
        .unwrap();

    let out = acme
        .transact_get()
        .get(Note::tenant_key("n1"))
        .get(Product::tenant_key("p1"))
        .await
        .unwrap();
    assert_eq!(
        out.entity::<Note>(0).unwrap(),
        Some(note("acme", "n1", "second"))
    );
    assert_eq!(
        out.entity::<Product>(1).unwrap(),
        Some(product("acme", "p1", "tools", 5))
    );
    // globex's product of the same id is untouched and its own.
    assert_eq!(
        globex.get(Product::tenant_key("p1")).await.unwrap(),
        Some(product("globex", "p1", "tools", 5))
    );
    assert_eq!(globex.get(Note::tenant_key("n1")).await.unwrap(), None);
}

#[tokio::test]
async fn another_tenants_entity_or_key_is_refused_and_nothing_is_written() {
    let t = table(&[Product::MODEL, Note::MODEL]).await;
    let acme = t.client.tenant("acme");
    let globex = t.client.tenant("globex");
    globex
        .put(&product("globex", "p1", "tools", 5))
        .await
        .unwrap();

    // An entity of another tenant: refused before sending, with the
    // transaction's own items.
    let refused = acme
        .transact_write()
        .put(&note("acme", "n1", "mine"))
        .put(&product("globex", "p9", "tools", 5))
        .await;
    assert!(mismatch(&refused, "acme", Some("globex")), "{refused:?}");
    assert_eq!(acme.get(Note::tenant_key("n1")).await.unwrap(), None);
    assert_eq!(globex.get(Product::tenant_key("p9")).await.unwrap(), None);

    // A whole key of another tenant: the request check refuses it.
    let fp = Product::fields();
    let refused = acme
        .transact_write()
        .update(
            Product::key("globex", "p1"),
            Update::new().set(fp.name, "taken"),
            None,
        )
        .await;
    assert!(mismatch(&refused, "acme", Some("globex")), "{refused:?}");
    let refused = acme
        .transact_write()
        .delete(Product::key("globex", "p1"), None)
        .await;
    assert!(mismatch(&refused, "acme", Some("globex")), "{refused:?}");
    let refused = acme.transact_get().get(Product::key("globex", "p1")).await;
    assert!(mismatch(&refused, "acme", Some("globex")), "{refused:?}");
    assert_eq!(
        globex.get(Product::tenant_key("p1")).await.unwrap(),
        Some(product("globex", "p1", "tools", 5))
    );
}

/// Tenant `Xacme`'s Note keys are tenant `acme`'s Memo keys: every write of
/// a tenant transaction is conditioned on its item being absent or of its
/// entity, so the transaction is canceled and reported as
/// `TenantMismatch` without acme's item.
#[tokio::test]
async fn a_tenant_transaction_cannot_reach_another_tenants_items_through_an_overlapping_format() {
    let t = table(&[Note::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    let memo = Memo {
        tenant_id: "acme".into(),
        id: "m1".into(),
        text: "acme's secret".into(),
    };
    acme.put(&memo).await.unwrap();
    let stored = stored_at(&t.client, "ORG#Xacme", "m1").await;

    let intruder = t.client.tenant("Xacme");
    let f = Note::fields();
    let attempts = [
        (
            "put",
            intruder
                .transact_write()
                .put(&note("Xacme", "m1", "overwritten")),
        ),
        (
            "put_if",
            intruder
                .transact_write()
                .put_if(&note("Xacme", "m1", "overwritten"), f.text.ne("x")),
        ),
        (
            "create",
            intruder
                .transact_write()
                .create(&note("Xacme", "m1", "overwritten")),
        ),
        (
            "update",
            intruder.transact_write().update(
                Note::tenant_key("m1"),
                Update::new().set(f.text, "overwritten"),
                None,
            ),
        ),
        (
            "delete",
            intruder
                .transact_write()
                .delete(Note::tenant_key("m1"), None),
        ),
        (
            "condition_check",
            intruder
                .transact_write()
                .condition_check(Note::tenant_key("m1"), f.text.eq("acme's secret")),
        ),
        (
            "with an own write",
            intruder
                .transact_write()
                .put(&note("Xacme", "n1", "own"))
                .delete(Note::tenant_key("m1"), None),
        ),
    ];
    for (name, attempt) in attempts {
        let result = attempt.await;
        // `create` fails its own `attribute_not_exists` first: canceled
        // either way, and never `TransactionCanceled` with acme's item.
        let leaked = matches!(&result, Err(Error::TransactionCanceled { reasons, .. })
            if reasons.iter().any(|r| r.item.is_some()));
        assert!(!leaked, "{name}: acme's item handed over: {result:?}");
        assert!(result.is_err(), "{name}: went through");
        if name != "create" {
            assert!(mismatch(&result, "Xacme", None), "{name}: {result:?}");
        }
    }
    assert_eq!(acme.get(Memo::tenant_key("m1")).await.unwrap(), Some(memo));
    assert_eq!(stored_at(&t.client, "ORG#Xacme", "m1").await, stored);
    // The canceled transaction wrote nothing of its own either.
    assert_eq!(intruder.get(Note::tenant_key("n1")).await.unwrap(), None);
}

#[tokio::test]
async fn a_failed_condition_on_the_tenants_own_item_is_a_canceled_transaction() {
    let t = table(&[Note::MODEL]).await;
    let acme = t.client.tenant("acme");
    acme.put(&note("acme", "n1", "first")).await.unwrap();
    let f = Note::fields();
    let result = acme
        .transact_write()
        .update(
            Note::tenant_key("n1"),
            Update::new().set(f.text, "second"),
            Some(f.text.eq("other")),
        )
        .await;
    match result {
        Err(Error::TransactionCanceled { reasons, .. }) => {
            let failed: Vec<_> = reasons.iter().filter(|r| r.is_condition_failed()).collect();
            assert_eq!(failed.len(), 1, "{reasons:?}");
            assert_eq!(failed[0].index, 0);
        }
        other => panic!("expected TransactionCanceled, got {other:?}"),
    }
    assert_eq!(
        acme.get(Note::tenant_key("n1")).await.unwrap(),
        Some(note("acme", "n1", "first"))
    );
}

/// `client.cross_tenant()` writes and reads across tenants on purpose: a
/// batch of several tenants' items, a transaction that hands an item from
/// one tenant to another, and a read transaction of both.
#[tokio::test]
async fn cross_tenant_batches_and_transactions_span_tenants() {
    let t = table(&[Product::MODEL, Note::MODEL]).await;
    let admin = t.client.cross_tenant();
    let out = admin
        .batch_write()
        .put_all(&[
            product("acme", "p1", "tools", 5),
            product("globex", "p2", "tools", 7),
        ])
        .put(&note("acme", "n1", "handover"))
        .await
        .unwrap();
    assert_eq!(out.written, 3);

    admin
        .transact_write()
        .delete(Product::key("acme", "p1"), None)
        .create(&product("globex", "p1", "tools", 5))
        .update(
            Note::key("acme", "n1"),
            Update::new().set(Note::fields().text, "handed to globex"),
            None,
        )
        .await
        .unwrap();
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    assert_eq!(acme.get(Product::tenant_key("p1")).await.unwrap(), None);
    assert_eq!(
        globex.get(Product::tenant_key("p1")).await.unwrap(),
        Some(product("globex", "p1", "tools", 5))
    );

    let read = admin
        .transact_get()
        .get(Note::key("acme", "n1"))
        .get(Product::key("globex", "p2"))
        .await
        .unwrap();
    assert_eq!(
        read.entity::<Note>(0).unwrap(),
        Some(note("acme", "n1", "handed to globex"))
    );
    assert_eq!(
        read.entity::<Product>(1).unwrap(),
        Some(product("globex", "p2", "tools", 7))
    );

    let out = admin
        .batch_write()
        .delete(Product::key("globex", "p1"))
        .delete(Product::key("globex", "p2"))
        .await
        .unwrap();
    assert_eq!(out.written, 2);
    assert!(globex
        .query(Product::tenant_primary())
        .all()
        .await
        .unwrap()
        .is_empty());
}
