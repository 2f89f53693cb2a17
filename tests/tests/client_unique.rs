//! Unique constraints: a sentinel item per value, written, moved and removed
//! in the entity's transaction; a strongly consistent lookup through it; and
//! sentinels that never surface as entities.

mod common;

use common::{scan_raw, stored};
use entity_client::faults::{Fault, FaultProxy, Operation};
use entity_client::{Client, Entity, Error, ValidationError};
use entity_tests::harness::{table, TestTable};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "shop",
    unique(email, case_insensitive),
    unique(tenant_id, handle),
    unique(nickname)
)]
#[pk(customer_id)]
#[sk()]
#[index(by_tenant(gsi = "gsi1", pk(tenant_id), sk(customer_id)))]
struct Customer {
    #[entity(generate = "ulid")]
    customer_id: String,
    tenant_id: String,
    email: String,
    handle: String,
    nickname: Option<String>,
    name: String,
}

/// Another entity with an `email` constraint of its own.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "shop", unique(email))]
#[pk(vendor_id)]
#[sk()]
struct Vendor {
    vendor_id: String,
    email: String,
}

fn customer(email: &str, handle: &str) -> Customer {
    Customer {
        customer_id: String::new(),
        tenant_id: "t1".into(),
        email: email.into(),
        handle: handle.into(),
        nickname: None,
        name: "Ada".into(),
    }
}

async fn setup() -> TestTable {
    table(&[Customer::MODEL, Vendor::MODEL]).await
}

/// The sentinel items in the table.
async fn sentinels(client: &Client) -> Vec<String> {
    let mut keys: Vec<String> = scan_raw(client)
        .await
        .into_iter()
        .filter(|item| {
            item.get("__entity").and_then(|v| v.as_s().ok()) == Some(&"__unique".to_owned())
        })
        .map(|item| item["pk"].as_s().unwrap().clone())
        .collect();
    keys.sort();
    keys
}

fn violation(err: &Error) -> (&'static str, &str) {
    match err {
        Error::UniqueViolation {
            entity: "Customer",
            constraint,
            value,
        } => (constraint, value.as_str()),
        other => panic!("expected a unique violation, got {other:?}"),
    }
}

#[tokio::test]
async fn create_writes_a_sentinel_per_value_and_the_lookup_finds_the_item() {
    let t = setup().await;
    let c = &t.client;

    let ada = c.create(&customer("Ada@Example.com", "ada")).await.unwrap();

    assert_eq!(
        sentinels(c).await,
        [
            "__unique#shop#Customer#email#ada@example.com",
            "__unique#shop#Customer#tenant_id_handle#t1#ada",
        ],
        "no sentinel for the nickname, which is None"
    );
    let found = c
        .get_unique(Customer::by_email("ADA@example.COM"))
        .await
        .unwrap();
    assert_eq!(found, Some(ada.clone()));
    let by_handle = c
        .get_unique(Customer::by_tenant_id_handle("t1", "ada"))
        .await
        .unwrap();
    assert_eq!(by_handle, Some(ada));
    assert_eq!(
        c.get_unique(Customer::by_email("bob@example.com"))
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn a_taken_value_is_a_unique_violation_and_nothing_is_written() {
    let t = setup().await;
    let c = &t.client;
    c.create(&customer("ada@example.com", "ada")).await.unwrap();
    let before = scan_raw(c).await.len();

    let err = c
        .create(&customer("ADA@example.com", "other"))
        .await
        .unwrap_err();
    assert_eq!(violation(&err), ("email", "ada@example.com"));

    let err = c
        .create(&customer("new@example.com", "ada"))
        .await
        .unwrap_err();
    assert_eq!(violation(&err), ("tenant_id_handle", "t1#ada"));
    assert_eq!(scan_raw(c).await.len(), before, "nothing written");

    let mut elsewhere = customer("new@example.com", "ada");
    elsewhere.tenant_id = "t2".into();
    c.create(&elsewhere).await.unwrap();
}

#[tokio::test]
async fn each_entity_has_its_own_sentinels() {
    let t = setup().await;
    let c = &t.client;
    c.create(&customer("shared@example.com", "a"))
        .await
        .unwrap();

    let vendor = Vendor {
        vendor_id: "v1".into(),
        email: "shared@example.com".into(),
    };
    c.create(&vendor).await.unwrap();

    assert_eq!(
        c.get_unique(Vendor::by_email("shared@example.com"))
            .await
            .unwrap(),
        Some(vendor)
    );
}

/// The test: 32 concurrent creates of one email, exactly one wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_concurrent_creates_with_one_email_exactly_one_succeeds() {
    let t = setup().await;
    let attempts: Vec<_> = (0..32)
        .map(|i| {
            let client = t.client.clone();
            tokio::spawn(async move {
                client
                    .create(&customer("race@example.com", &format!("h{i}")))
                    .await
            })
        })
        .collect();
    let mut won = Vec::new();
    let mut lost = 0;
    for attempt in attempts {
        match attempt.await.unwrap() {
            Ok(customer) => won.push(customer),
            Err(e) => {
                assert_eq!(violation(&e), ("email", "race@example.com"));
                lost += 1;
            }
        }
    }

    assert_eq!((won.len(), lost), (1, 31));
    let page = t.client.query(Customer::by_tenant("t1")).await.unwrap();
    assert_eq!(page.items, won, "one customer stored");
    assert_eq!(sentinels(&t.client).await.len(), 2);
}

#[tokio::test]
async fn changing_an_email_frees_the_old_one() {
    let t = setup().await;
    let c = &t.client;
    let mut ada = c.create(&customer("ada@example.com", "ada")).await.unwrap();

    ada.email = "lovelace@example.com".into();
    ada.nickname = Some("countess".into());
    c.put(&ada).await.unwrap();

    let bob = c.create(&customer("ada@example.com", "bob")).await.unwrap();
    assert_eq!(
        c.get_unique(Customer::by_email("ada@example.com"))
            .await
            .unwrap(),
        Some(bob)
    );
    assert_eq!(
        c.get_unique(Customer::by_email("lovelace@example.com"))
            .await
            .unwrap(),
        Some(ada.clone())
    );
    assert_eq!(
        c.get_unique(Customer::by_nickname("countess"))
            .await
            .unwrap(),
        Some(ada.clone())
    );

    // Taking a value another item holds fails and changes nothing.
    let mut taken = ada.clone();
    taken.handle = "bob".into();
    let err = c.upsert(&taken).await.unwrap_err();
    assert_eq!(violation(&err), ("tenant_id_handle", "t1#bob"));
    let stored_ada = stored(c, &Customer::key(&ada.customer_id)).await.unwrap();
    assert_eq!(Customer::from_item(stored_ada).unwrap(), ada);
    assert_eq!(sentinels(c).await.len(), 5, "2 of bob's, 3 of ada's");
}

#[tokio::test]
async fn delete_and_remove_free_every_value() {
    let t = setup().await;
    let c = &t.client;
    let mut ada = customer("ada@example.com", "ada");
    ada.nickname = Some("countess".into());
    let ada = c.create(&ada).await.unwrap();
    let key = || Customer::key(&ada.customer_id);

    c.delete(key()).await.unwrap();
    assert!(sentinels(c).await.is_empty());
    assert!(scan_raw(c).await.is_empty());
    c.delete(key()).await.unwrap();
    assert!(matches!(
        c.remove(key()).await.unwrap_err(),
        Error::NotFound { entity: "Customer" }
    ));

    let again = c.create(&ada).await.unwrap();
    c.remove(Customer::key(&again.customer_id)).await.unwrap();
    assert!(scan_raw(c).await.is_empty());
}

#[tokio::test]
async fn sentinels_never_surface_in_queries_or_scans() {
    let t = setup().await;
    let c = &t.client;
    let ada = c.create(&customer("ada@example.com", "ada")).await.unwrap();

    let queried = c.query(Customer::by_tenant("t1")).await.unwrap();
    assert_eq!(queried.items, std::slice::from_ref(&ada));
    let scanned = c.scan::<Customer>().await.unwrap();
    assert_eq!(scanned.items, [ada]);
    assert_eq!(scan_raw(c).await.len(), 3, "the item and two sentinels");
}

#[tokio::test]
async fn a_transaction_creates_sentinels_and_counts_them_against_the_limit() {
    let t = setup().await;
    let c = &t.client;
    c.transact_write()
        .create(&customer("ada@example.com", "ada"))
        .await
        .unwrap();
    assert_eq!(sentinels(c).await.len(), 2);

    let err = c
        .transact_write()
        .create(&customer("ada@example.com", "x"))
        .await
        .unwrap_err();
    assert_eq!(violation(&err), ("email", "ada@example.com"));

    // 34 creates of 3 items each (the customer, two sentinels) is 102.
    let transaction = (0..34).fold(c.transact_write(), |tx, i| {
        tx.create(&customer(&format!("c{i}@example.com"), &format!("c{i}")))
    });
    assert_eq!(transaction.len(), 102);
    let err = transaction.await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Validation(ValidationError::TooManyTransactionItems {
                count: 102,
                limit: 100
            })
        ),
        "{err:?}"
    );
}

/// A create with sentinels whose response is lost after it was applied:
/// the retry is the same transaction token, so it reports success, not a
/// violation by its own sentinel.
#[tokio::test]
async fn a_create_through_a_lost_response_succeeds_once() {
    let t = setup().await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let client = Client::local(proxy.endpoint(), t.client.table());
    proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying],
    );

    let ada = client
        .create(&customer("ada@example.com", "ada"))
        .await
        .unwrap();

    assert_eq!(
        proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        2
    );
    assert_eq!(
        t.client
            .get_unique(Customer::by_email("ada@example.com"))
            .await
            .unwrap(),
        Some(ada)
    );
    assert_eq!(sentinels(&t.client).await.len(), 2);
}

/// Two creates of one transaction that claim one value: the second is
/// refused as its claim would be, naming the value (not the sentinel's
/// key), and nothing is sent.
#[tokio::test]
async fn two_claims_of_one_value_in_a_transaction_are_a_unique_violation() {
    let t = setup().await;
    let c = &t.client;
    let err = c
        .transact_write()
        .create(&customer("Same@Example.com", "ada"))
        .create(&customer("same@example.com", "grace"))
        .await
        .unwrap_err();
    assert_eq!(violation(&err), ("email", "same@example.com"));
    assert!(sentinels(c).await.is_empty());
    assert!(scan_raw(c).await.is_empty());
}
