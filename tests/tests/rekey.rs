//! A change of table key as one move (`client.rekey`): the new item
//! written, the old deleted, unique sentinels repointed or moved,
//! `created_at` and the version chain kept, in one transaction; a taken
//! key, a missing or deleted item and a stale version are typed errors
//! that change nothing.

use entity_client::{Entity, Error, FailedCondition};
use entity_tests::harness::table;

/// A soft-deleted, versioned account with history, a unique email and
/// managed timestamps, keyed by its handle.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rk", soft_delete, history, unique(email))]
#[pk(handle)]
#[sk()]
struct Account {
    handle: String,
    email: String,
    #[entity(version)]
    version: u64,
    #[entity(created_at)]
    created_at: Option<entity_client::EpochMillis>,
}

fn account(handle: &str, email: &str) -> Account {
    Account {
        handle: handle.into(),
        email: email.into(),
        version: 0,
        created_at: None,
    }
}

async fn stored_items(client: &entity_client::Client) -> usize {
    let out = client
        .sdk()
        .scan()
        .table_name(client.table())
        .send()
        .await
        .unwrap();
    out.count() as usize
}

#[tokio::test]
async fn a_move_keeps_created_at_the_version_chain_and_the_unique_value() {
    let t = table(&[Account::MODEL]).await;
    let c = &t.client;
    let ada = c.create(&account("ada", "ada@example.com")).await.unwrap();

    let renamed = Account {
        handle: "ada_l".into(),
        ..ada.clone()
    };
    let moved = c.rekey(Account::key("ada"), &renamed).await.unwrap();

    assert_eq!(moved.handle, "ada_l");
    assert_eq!(
        moved.version,
        ada.version + 1,
        "the next version of the old item"
    );
    assert_eq!(
        moved.created_at, ada.created_at,
        "created when the old one was"
    );
    assert_eq!(c.get(Account::key("ada")).await.unwrap(), None);
    assert_eq!(
        c.get(Account::key("ada_l")).await.unwrap(),
        Some(moved.clone())
    );
    let by_email = c
        .get_unique(Account::by_email("ada@example.com"))
        .await
        .unwrap();
    assert_eq!(
        by_email,
        Some(moved.clone()),
        "the sentinel points to the new key"
    );
    // The value is still held: another account cannot take it.
    let err = c
        .create(&account("eve", "ada@example.com"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::UniqueViolation { .. }), "{err:?}");
    // The new key's history starts with the move.
    let history = c.history(Account::key("ada_l")).all().await.unwrap();
    assert_eq!(history.first(), Some(&moved), "{history:?}");
}

#[tokio::test]
async fn a_move_that_changes_the_unique_value_frees_the_old_one() {
    let t = table(&[Account::MODEL]).await;
    let c = &t.client;
    let ada = c.create(&account("ada", "ada@example.com")).await.unwrap();

    let moved = Account {
        handle: "lovelace".into(),
        email: "lovelace@example.com".into(),
        ..ada
    };
    c.rekey(Account::key("ada"), &moved).await.unwrap();

    c.create(&account("eve", "ada@example.com"))
        .await
        .expect("the old value is free");
    let found = c
        .get_unique(Account::by_email("lovelace@example.com"))
        .await
        .unwrap();
    assert_eq!(found.map(|a| a.handle).as_deref(), Some("lovelace"));
}

#[tokio::test]
async fn a_taken_key_is_a_typed_error_and_nothing_moves() {
    let t = table(&[Account::MODEL]).await;
    let c = &t.client;
    let ada = c.create(&account("ada", "ada@example.com")).await.unwrap();
    let grace = c
        .create(&account("grace", "grace@example.com"))
        .await
        .unwrap();
    let before = stored_items(c).await;

    let onto_grace = Account {
        handle: "grace".into(),
        ..ada.clone()
    };
    let err = c.rekey(Account::key("ada"), &onto_grace).await.unwrap_err();

    match &err {
        Error::ConditionFailed { why, .. } => assert_eq!(*why, FailedCondition::Exists),
        other => panic!("expected ConditionFailed, got {other:?}"),
    }
    assert_eq!(c.get(Account::key("ada")).await.unwrap(), Some(ada));
    assert_eq!(c.get(Account::key("grace")).await.unwrap(), Some(grace));
    assert_eq!(stored_items(c).await, before, "nothing written");
}

#[tokio::test]
async fn a_missing_deleted_or_stale_item_is_refused() {
    let t = table(&[Account::MODEL]).await;
    let c = &t.client;
    let missing = c
        .rekey(
            Account::key("nobody"),
            &account("somebody", "x@example.com"),
        )
        .await
        .unwrap_err();
    assert!(matches!(missing, Error::NotFound { .. }), "{missing:?}");

    let ada = c.create(&account("ada", "ada@example.com")).await.unwrap();
    // A stale version: the stored item moved on since `ada` was read.
    c.put(&ada).await.unwrap();
    let stale = Account {
        handle: "ada_l".into(),
        ..ada.clone()
    };
    let err = c.rekey(Account::key("ada"), &stale).await.unwrap_err();
    assert!(matches!(err, Error::VersionConflict { .. }), "{err:?}");
    assert_eq!(c.get(Account::key("ada_l")).await.unwrap(), None);

    c.delete(Account::key("ada")).await.unwrap();
    let current = Account {
        handle: "ada_l".into(),
        version: ada.version + 1,
        ..ada
    };
    let deleted = c.rekey(Account::key("ada"), &current).await.unwrap_err();
    assert!(matches!(deleted, Error::NotFound { .. }), "{deleted:?}");
    assert_eq!(c.get(Account::key("ada_l")).await.unwrap(), None);
}

#[tokio::test]
async fn a_move_to_the_same_key_is_refused() {
    let t = table(&[Account::MODEL]).await;
    let c = &t.client;
    let ada = c.create(&account("ada", "ada@example.com")).await.unwrap();
    let err = c.rekey(Account::key("ada"), &ada).await.unwrap_err();
    assert!(err.to_string().contains("put"), "{err}");
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "rkt", tenant = tenant_id, unique(slug))]
#[pk(tenant_id, slug)]
#[sk()]
struct Page {
    tenant_id: String,
    slug: String,
}

#[tokio::test]
async fn a_tenant_moves_its_own_items_within_its_tenant() {
    let t = table(&[Page::MODEL]).await;
    let acme = t.client.tenant("acme");
    let page = |tenant: &str, slug: &str| Page {
        tenant_id: tenant.into(),
        slug: slug.into(),
    };
    acme.put(&page("acme", "home")).await.unwrap();

    let moved = acme
        .rekey(Page::tenant_key("home"), &page("acme", "start"))
        .await
        .unwrap();
    assert_eq!(moved.slug, "start");
    assert_eq!(acme.get(Page::tenant_key("home")).await.unwrap(), None);
    assert!(acme.get(Page::tenant_key("start")).await.unwrap().is_some());

    let err = acme
        .rekey(Page::tenant_key("start"), &page("globex", "start"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::TenantMismatch { .. }), "{err:?}");
    assert!(acme.get(Page::tenant_key("start")).await.unwrap().is_some());
}

#[tokio::test]
async fn explain_shows_the_move_and_moves_nothing() {
    use entity_client::Explain;
    let t = table(&[Account::MODEL]).await;
    let c = &t.client;
    let ada = c.create(&account("ada", "ada@example.com")).await.unwrap();
    let before = stored_items(c).await;
    let renamed = Account {
        handle: "ada_l".into(),
        ..ada
    };
    let explained = c
        .rekey(Account::key("ada"), &renamed)
        .explain()
        .await
        .unwrap();
    let operations: Vec<&str> = explained
        .requests
        .iter()
        .map(|r| r.operation.as_str())
        .collect();
    // The stored item's read, then the one transaction.
    assert_eq!(
        operations.last(),
        Some(&"TransactWriteItems"),
        "{operations:?}"
    );
    let body = explained.requests.last().unwrap().json();
    let items = body["TransactItems"].as_array().unwrap();
    assert!(items.iter().any(|i| i.get("Delete").is_some()), "{body}");
    assert!(items.iter().any(|i| i.get("Put").is_some()), "{body}");
    assert_eq!(stored_items(c).await, before, "nothing sent");
    assert!(c.get(Account::key("ada")).await.unwrap().is_some());
}
