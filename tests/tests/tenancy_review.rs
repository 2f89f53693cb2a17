//! Review of multi-tenancy: tenant ids that look like separators, escapes
//! or prefixes of one another, the default key format, index key changes,
//! soft delete and history, concurrent tenant clients, and tenants whose
//! keys other entities' formats can also spell.

mod common;

use common::stored_at;
use entity_client::{Entity, Error};
use entity_tests::harness::table;
use entity_tests::tenancy::{product, Journal, Memo, Note, Product};

/// The default key format, with the tenant in the table's and a GSI's
/// partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", tenant = org)]
#[pk(org)]
#[sk(order_id)]
#[index(by_status(gsi = "gsi1", pk(org, status), sk(order_id)))]
struct Order {
    org: String,
    order_id: String,
    status: String,
}

/// A tenant entity with soft delete and history.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", tenant = tenant_id, soft_delete, history(keep = 3))]
#[pk(tenant_id)]
#[sk(doc_id)]
struct Doc {
    tenant_id: String,
    doc_id: String,
    body: String,
    #[entity(version)]
    version: u64,
}

/// Tenant ids that hold the key separator, the escape character, the
/// schema marker, nothing at all, the common tenant, and ids that are
/// prefixes of one another or spell another tenant's index key.
const TRICKY: &[&str] = &[
    "t1",
    "t10",
    "t1#tools",
    "t1%23tools",
    "a#b",
    "a%23b",
    "$shop",
    "%",
    "common",
    "Common",
    "a b",
    "",
    "\u{10FFFF}",
    "\u{10FFFE}",
];

#[tokio::test]
async fn tricky_tenant_ids_each_see_only_their_own_items() {
    let t = table(&[Product::MODEL]).await;
    for &tenant in TRICKY {
        let client = t.client.tenant(tenant);
        client
            .put(&product(tenant, "p1", "tools", 1))
            .await
            .unwrap_or_else(|e| panic!("put for {tenant:?}: {e:?}"));
        // Also a category that, composed, could look like another tenant's
        // index partition (`PRODUCT#t1#tools` and `PRODUCT#t1%23tools#...`).
        client
            .put(&product(tenant, "p2", "tools#x", 2))
            .await
            .unwrap_or_else(|e| panic!("put for {tenant:?}: {e:?}"));
    }
    for &tenant in TRICKY {
        let client = t.client.tenant(tenant);
        let own = |p: &Product| p.tenant_id == tenant;
        let got = client.get(Product::tenant_key("p1")).await.unwrap();
        assert_eq!(got, Some(product(tenant, "p1", "tools", 1)), "{tenant:?}");
        let all = client.query(Product::tenant_primary()).all().await.unwrap();
        assert_eq!(all.len(), 2, "{tenant:?}: {all:?}");
        assert!(all.iter().all(own), "{tenant:?}: {all:?}");
        let tools = client
            .query(Product::tenant_by_category("tools"))
            .all()
            .await
            .unwrap();
        assert_eq!(tools, vec![product(tenant, "p1", "tools", 1)], "{tenant:?}");
        let batch = client
            .batch_get([Product::tenant_key("p1"), Product::tenant_key("p2")])
            .await
            .unwrap();
        assert!(batch.errors.is_empty(), "{tenant:?}: {batch:?}");
        assert_eq!(batch.items.len(), 2, "{tenant:?}");
        assert!(batch.items.iter().all(own), "{tenant:?}");
        // A whole key of its own is taken; every other tenant's refused.
        assert!(client
            .get(Product::key(tenant, "p1"))
            .await
            .unwrap()
            .is_some());
        for &other in TRICKY.iter().filter(|&&o| o != tenant) {
            let error = client.get(Product::key(other, "p1")).await.unwrap_err();
            assert!(
                matches!(&error, Error::TenantMismatch { expected, found: Some(f) } if expected == tenant && f == other),
                "{tenant:?} reading {other:?}: {error:?}"
            );
            let error = client
                .query(Product::by_category(other, "tools"))
                .all()
                .await
                .unwrap_err();
            assert!(
                matches!(&error, Error::TenantMismatch { .. }),
                "{tenant:?} querying {other:?}: {error:?}"
            );
        }
    }
}

#[tokio::test]
async fn default_format_tenants_are_isolated_on_the_table_and_the_index() {
    let t = table(&[Order::MODEL]).await;
    for &tenant in TRICKY {
        let order = Order {
            org: tenant.into(),
            order_id: "o1".into(),
            status: "open".into(),
        };
        t.client.tenant(tenant).put(&order).await.unwrap();
    }
    for &tenant in TRICKY {
        let c = t.client.tenant(tenant);
        let open = c
            .query(Order::tenant_by_status("open"))
            .all()
            .await
            .unwrap();
        assert_eq!(open.len(), 1, "{tenant:?}: {open:?}");
        assert_eq!(open[0].org, tenant);
        let mine = c.query(Order::tenant_primary()).all().await.unwrap();
        assert_eq!(mine.len(), 1, "{tenant:?}: {mine:?}");
        assert_eq!(mine[0].org, tenant);
    }
}

/// An index key change names the tenant (a table key composite the index
/// holds): given another tenant, the update must not move this tenant's
/// item into that tenant's index partition.
#[tokio::test]
async fn an_index_key_change_cannot_move_an_item_into_another_tenants_index() {
    let t = table(&[Product::MODEL]).await;
    let (a, b) = (t.client.tenant("t-a"), t.client.tenant("t-b"));
    a.put(&product("t-a", "p1", "tools", 1)).await.unwrap();
    let error = a
        .patch(Product::tenant_key("p1"))
        .apply(Product::set_category("tools", "t-b"))
        .await;
    assert!(error.is_err(), "{error:?}");
    let error = a
        .update(Product::tenant_key("p2"))
        .apply(Product::set_category("tools", "t-b"))
        .await;
    assert!(error.is_err(), "{error:?}");
    assert_eq!(
        b.query(Product::tenant_by_category("tools"))
            .all()
            .await
            .unwrap(),
        vec![]
    );
    let stored = stored_at(&t.client, "PRODUCT#t-a", "p1").await;
    assert_eq!(stored["gsi1pk"], common::s("PRODUCT#t-a#tools"));
}

#[tokio::test]
async fn soft_delete_restore_and_history_work_through_a_tenant_client() {
    let t = table(&[Doc::MODEL]).await;
    let a = t.client.tenant("t-a");
    let doc = Doc {
        tenant_id: "t-a".into(),
        doc_id: "d1".into(),
        body: "one".into(),
        version: 0,
    };
    a.create(&doc).await.unwrap();
    let f = Doc::fields();
    a.patch(Doc::tenant_key("d1"))
        .set(f.body, "two")
        .await
        .unwrap();
    a.delete(Doc::tenant_key("d1")).await.unwrap();
    assert_eq!(a.get(Doc::tenant_key("d1")).await.unwrap(), None);
    let restored = a.restore(Doc::tenant_key("d1")).await.unwrap();
    assert_eq!(restored.body, "two");
    assert_eq!(
        a.get(Doc::tenant_key("d1")).await.unwrap().map(|d| d.body),
        Some("two".to_owned())
    );
    // Tenant b sees none of it, and cannot restore or delete it.
    let b = t.client.tenant("t-b");
    assert_eq!(b.get(Doc::tenant_key("d1")).await.unwrap(), None);
    assert!(b.remove(Doc::tenant_key("d1")).await.is_err());
    assert!(a.get(Doc::tenant_key("d1")).await.unwrap().is_some());
}

/// Many tasks asking the same client for tenant clients at once, each
/// writing and reading its own tenant: no tenant client is handed to the
/// wrong tenant.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_tenant_clients_keep_to_their_tenants() {
    let t = table(&[Product::MODEL]).await;
    let client = t.client.clone();
    let mut tasks = Vec::new();
    for i in 0..64 {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let tenant = format!("t{}", i % 16);
            let c = client.tenant(&tenant);
            assert_eq!(c.tenant(), tenant);
            c.put(&product(&tenant, &format!("p{i}"), "tools", i))
                .await
                .unwrap();
            let mine = c.query(Product::tenant_primary()).all().await.unwrap();
            assert!(mine.iter().all(|p| p.tenant_id == tenant), "{mine:?}");
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    for k in 0..16 {
        let tenant = format!("t{k}");
        let mine = client
            .tenant(&tenant)
            .query(Product::tenant_primary())
            .all()
            .await
            .unwrap();
        assert_eq!(mine.len(), 4, "{tenant}: {mine:?}");
    }
}

/// Past the cache's bound, tenant clients are made again and still work;
/// ones handed out before keep working.
#[tokio::test]
async fn the_tenant_cache_starts_over_without_mixing_tenants() {
    let t = table(&[Product::MODEL]).await;
    let early = t.client.tenant("t-early");
    for i in 0..4200 {
        let c = t.client.tenant(format!("t{i}"));
        assert_eq!(c.tenant(), format!("t{i}"));
    }
    early.put(&product("t-early", "p1", "x", 1)).await.unwrap();
    let again = t.client.tenant("t-early");
    assert_eq!(
        again.get(Product::tenant_key("p1")).await.unwrap(),
        Some(product("t-early", "p1", "x", 1))
    );
    assert_eq!(
        t.client
            .tenant("t-other")
            .get(Product::tenant_key("p1"))
            .await
            .unwrap(),
        None
    );
}

fn is_refused(result: &Result<impl std::fmt::Debug, Error>) -> bool {
    matches!(
        result,
        Err(Error::TenantMismatch { expected, found: None }) if expected == "Xacme"
    )
}

/// A tenant named so that its keys of one entity are another tenant's
/// keys of another entity must not reach that tenant's items: every write
/// of a tenant client is conditioned on the item being absent or of its
/// entity, and a write over another entity's item is `TenantMismatch`
/// (without the item).
#[tokio::test]
async fn a_tenant_id_cannot_reach_another_tenants_items_through_an_overlapping_format() {
    // `create_table` refuses `Journal` beside `Note`, whose key format it
    // spells; the table they would share is `Note`'s, and Journal's items
    // go in it as they would in a table made another way.
    let t = table(&[Note::MODEL, Memo::MODEL]).await;
    assert!(entity_client::TableDesign::from_models(&[Note::MODEL, Journal::MODEL]).is_err());
    let acme = t.client.tenant("acme");
    let memo = Memo {
        tenant_id: "acme".into(),
        id: "m1".into(),
        text: "acme's secret".into(),
    };
    acme.put(&memo).await.unwrap();
    let stored = stored_at(&t.client, "ORG#Xacme", "m1").await;
    assert_eq!(stored["text"], common::s("acme's secret"));

    // Tenant "Xacme" names acme's partition with Note's format.
    let intruder = t.client.tenant("Xacme");
    let read = intruder.get(Note::tenant_key("m1")).await;
    assert!(
        !matches!(&read, Ok(Some(note)) if note.text == "acme's secret"),
        "tenant Xacme read acme's memo: {read:?}"
    );
    let listed = intruder.query(Note::tenant_primary()).all().await;
    assert!(
        !matches!(&listed, Ok(notes) if notes.iter().any(|n| n.text == "acme's secret")),
        "tenant Xacme listed acme's memo: {listed:?}"
    );
    let note = Note {
        tenant_id: "Xacme".into(),
        id: "m1".into(),
        text: "overwritten".into(),
    };
    let f = Note::fields();
    let results = [
        ("delete", intruder.delete(Note::tenant_key("m1")).await),
        ("remove", intruder.remove(Note::tenant_key("m1")).await),
        ("put", intruder.put(&note).await.map(drop)),
        ("create", intruder.create(&note).await.map(drop)),
        ("upsert", intruder.upsert(&note).await.map(drop)),
        (
            "update",
            intruder
                .update(Note::tenant_key("m1"))
                .set(f.text, "overwritten")
                .await,
        ),
        (
            "patch",
            intruder
                .patch(Note::tenant_key("m1"))
                .set(f.text, "overwritten")
                .await,
        ),
        (
            "conditional put",
            intruder
                .put(&note)
                .condition(f.text.ne("x"))
                .await
                .map(drop),
        ),
        (
            "put with a token",
            intruder
                .put(&note)
                .idempotency_token("tok-1")
                .await
                .map(drop),
        ),
    ];
    for (operation, result) in &results {
        // Not `ConditionFailed`, whose `old` would hand over acme's item.
        assert!(is_refused(result), "{operation}: {result:?}");
    }
    let returned = intruder.delete(Note::tenant_key("m1")).return_old().await;
    assert!(is_refused(&returned), "delete returning: {returned:?}");
    // The writes that read the stored item first (history, soft delete,
    // restore) refuse it too.
    let fj = Journal::fields();
    assert!(is_refused(
        &intruder.delete(Journal::tenant_key("m1")).await
    ));
    assert!(is_refused(
        &intruder
            .update(Journal::tenant_key("m1"))
            .set(fj.text, "overwritten")
            .await
    ));
    assert!(is_refused(
        &intruder.restore(Journal::tenant_key("m1")).await
    ));
    assert_eq!(
        acme.get(Memo::tenant_key("m1")).await.unwrap(),
        Some(memo.clone()),
        "tenant Xacme changed acme's memo"
    );
    assert_eq!(
        stored_at(&t.client, "ORG#Xacme", "m1").await,
        stored,
        "the stored item changed"
    );

    // Xacme's own items at keys no other entity holds are written as ever,
    // blind, conditional, and soft deleted with history.
    let own = Note {
        id: "n1".into(),
        ..note.clone()
    };
    intruder.put(&own).await.unwrap();
    intruder
        .put(&own)
        .condition(f.text.eq("overwritten"))
        .await
        .unwrap();
    intruder
        .patch(Note::tenant_key("n1"))
        .set(f.text, "again")
        .await
        .unwrap();
    intruder.remove(Note::tenant_key("n1")).await.unwrap();
    assert_eq!(intruder.get(Note::tenant_key("n1")).await.unwrap(), None);
    let journal = Journal {
        tenant_id: "Xacme".into(),
        id: "j1".into(),
        text: "day one".into(),
        version: 0,
    };
    intruder.put(&journal).await.unwrap();
    intruder
        .update(Journal::tenant_key("j1"))
        .set(fj.text, "day two")
        .await
        .unwrap();
    intruder.delete(Journal::tenant_key("j1")).await.unwrap();
    let restored = intruder.restore(Journal::tenant_key("j1")).await.unwrap();
    assert_eq!(restored.text, "day two");
    assert_eq!(restored.version, 4);
}

/// The identity guard is no condition of the caller's: a tenant client's
/// blind put and delete stay single-item calls (a retry of either meets
/// the same entity, or no item, again), and carry the guard.
#[tokio::test]
async fn the_identity_guard_keeps_blind_writes_single_item_calls() {
    use entity_client::Explain;
    let t = table(&[Note::MODEL]).await;
    let client = t.client.tenant("acme");
    let note = Note {
        tenant_id: "acme".into(),
        id: "n1".into(),
        text: "hello".into(),
    };
    let guard = "(attribute_not_exists(#identity_guard_pk) OR #identity_guard = :identity_guard)";
    let put = client.put(&note).explain().await.unwrap();
    let delete = client
        .delete(Note::tenant_key("n1"))
        .explain()
        .await
        .unwrap();
    for (explained, operation) in [(put, "PutItem"), (delete, "DeleteItem")] {
        let request = explained.request().unwrap();
        assert_eq!(request.operation, operation);
        let body = request.json();
        assert_eq!(body["ConditionExpression"], guard, "{body}");
        assert_eq!(
            body["ExpressionAttributeValues"][":identity_guard"]["S"],
            "Note"
        );
    }
    // A condition of the caller's still makes the put a transaction.
    let f = Note::fields();
    let conditional = client
        .put(&note)
        .condition(f.text.eq("x"))
        .explain()
        .await
        .unwrap();
    let request = conditional.request().unwrap();
    assert_eq!(request.operation, "TransactWriteItems");
    let condition = &request.json()["TransactItems"][0]["Put"]["ConditionExpression"];
    assert!(
        condition
            .as_str()
            .unwrap()
            .ends_with(&format!("AND {guard})")),
        "{condition}"
    );
}
