//! `created_at`, `updated_at` and generated ids, on every write path: the
//! client fills them from its clock, composes keys from them, and hands
//! back the stored entity.

mod common;

use chrono::{DateTime, TimeZone, Utc};
use common::{stored, stored_entity};
use entity_client::expr::Update;
use entity_client::{Client, Entity, EpochMillis};
use entity_tests::clock::TestClock;
use entity_tests::harness::{table, TestTable};

/// Seed 000's feed: posts by author, newest last, sorted by creation time;
/// the id is a ULID the client generates.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "feed")]
#[pk(post_id)]
#[sk()]
#[index(by_author(gsi = "gsi1", pk(author), sk(created_at)))]
struct Post {
    #[entity(generate = "ulid")]
    post_id: String,
    author: String,
    title: String,
    #[entity(created_at)]
    created_at: DateTime<Utc>,
    #[entity(updated_at)]
    updated_at: EpochMillis,
}

/// A UUID id and optional timestamps.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "feed")]
#[pk(ticket_id)]
#[sk()]
struct Ticket {
    #[entity(generate = "uuid")]
    ticket_id: String,
    subject: String,
    #[entity(created_at)]
    opened: Option<EpochMillis>,
    #[entity(updated_at)]
    touched: Option<DateTime<Utc>>,
}

const T0: u64 = 1_700_000_000;

fn at(seconds: u64) -> DateTime<Utc> {
    Utc.timestamp_opt(seconds as i64, 0).unwrap()
}

fn millis(seconds: u64) -> EpochMillis {
    EpochMillis(seconds as i64 * 1000)
}

fn post(title: &str) -> Post {
    Post {
        post_id: String::new(),
        author: "ada".into(),
        title: title.into(),
        created_at: DateTime::default(),
        updated_at: EpochMillis::default(),
    }
}

async fn setup() -> (TestTable, Client, TestClock) {
    let t = table(&[Post::MODEL, Ticket::MODEL]).await;
    let clock = TestClock::at(T0);
    let client = t.client.clone().with_clock(clock.clone());
    (t, client, clock)
}

#[tokio::test]
async fn create_fills_the_id_and_both_timestamps_and_returns_the_stored_post() {
    let (t, client, _) = setup().await;

    let created = client.create(&post("hello")).await.unwrap();

    assert_eq!(created.post_id.len(), 26, "a ULID: {}", created.post_id);
    assert_eq!(created.created_at, at(T0));
    assert_eq!(created.updated_at, millis(T0));
    let key = Post::key(&created.post_id);
    assert_eq!(stored_entity(&t.client, &key).await, Some(created.clone()));
    // The index key is composed of the stamped creation time.
    let item = stored(&t.client, &key).await.unwrap();
    let sk = item["gsi1sk"].as_s().unwrap();
    assert!(sk.contains("2023-11-14T22:13:20"), "{sk}");
}

#[tokio::test]
async fn a_given_id_is_kept() {
    let (_t, client, _) = setup().await;
    let mut p = post("mine");
    p.post_id = "p-1".into();

    let created = client.create(&p).await.unwrap();

    assert_eq!(created.post_id, "p-1");
}

#[tokio::test]
async fn the_feed_index_sorts_by_the_creation_time_the_client_wrote() {
    let (_t, client, clock) = setup().await;
    let mut ids = Vec::new();
    for (i, title) in ["first", "second", "third"].into_iter().enumerate() {
        clock.set(T0 + 100 - 10 * i as u64);
        ids.push(client.create(&post(title)).await.unwrap().post_id);
    }

    let page = client.query(Post::by_author("ada")).await.unwrap();

    let titles: Vec<&str> = page.items.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["third", "second", "first"], "oldest first");
    let mut sorted = ids.clone();
    sorted.sort();
    ids.reverse();
    assert_eq!(
        sorted, ids,
        "ULIDs carry the client's clock, as created_at does"
    );
}

#[tokio::test]
async fn put_and_upsert_keep_the_creation_time_and_move_the_update_time() {
    let (t, client, clock) = setup().await;
    let created = client.create(&post("v1")).await.unwrap();
    let key = || Post::key(&created.post_id);

    clock.set(T0 + 60);
    let mut fresh = post("v2");
    fresh.post_id = created.post_id.clone();
    let put = client.put(&fresh).await.unwrap();
    assert_eq!((put.created_at, put.updated_at), (at(T0), millis(T0 + 60)));
    assert_eq!(put.title, "v2");
    assert_eq!(stored_entity(&t.client, &key()).await, Some(put));

    clock.set(T0 + 120);
    fresh.title = "v3".into();
    let upserted = client.upsert(&fresh).await.unwrap();
    assert_eq!(
        (upserted.created_at, upserted.updated_at),
        (at(T0), millis(T0 + 120))
    );
    assert_eq!(stored_entity(&t.client, &key()).await, Some(upserted));
}

/// The review's case: a put of a fresh value (creation time unset) keeps
/// the stored creation time, and the feed's index key composed of it too.
#[tokio::test]
async fn a_put_keeps_index_keys_composed_of_the_creation_time() {
    let (t, client, clock) = setup().await;
    let created = client.create(&post("v1")).await.unwrap();
    let key = || Post::key(&created.post_id);
    let gsi1sk = |item: &entity_client::Item| item["gsi1sk"].as_s().unwrap().clone();
    let before = gsi1sk(&stored(&t.client, &key()).await.unwrap());

    clock.set(T0 + 86_400);
    let mut fresh = post("v2");
    fresh.post_id = created.post_id.clone();
    let put = client.put(&fresh).await.unwrap();
    let upserted = client.upsert(&fresh).await.unwrap();

    assert_eq!((put.created_at, upserted.created_at), (at(T0), at(T0)));
    assert_eq!(gsi1sk(&stored(&t.client, &key()).await.unwrap()), before);
    let page = client.query(Post::by_author("ada")).await.unwrap();
    assert_eq!(page.items, [upserted]);
}

/// A put that keeps the creation time takes an idempotency token, and a
/// conditional one goes through a transaction that a lost response cannot
/// repeat.
#[tokio::test]
async fn a_put_keeping_the_creation_time_takes_a_token_and_survives_a_lost_response() {
    let (t, client, _) = setup().await;
    let created = client.create(&post("v1")).await.unwrap();
    let mut fresh = post("v2");
    fresh.post_id = created.post_id.clone();

    client
        .put(&fresh)
        .idempotency_token("put-v2")
        .await
        .unwrap();

    use entity_client::faults::{Fault, FaultProxy, Operation};
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let through = Client::local(proxy.endpoint(), t.client.table());
    proxy.faults().script(
        Operation::TransactWriteItems,
        [Fault::ServerErrorAfterApplying],
    );
    fresh.title = "v3".into();
    let put = through
        .put(&fresh)
        .condition(Post::fields().title.eq("v2"))
        .await
        .unwrap();
    assert_eq!((put.title.as_str(), put.created_at), ("v3", at(T0)));
    assert_eq!(
        proxy
            .faults()
            .counts(Operation::TransactWriteItems)
            .forwarded,
        2
    );
}

/// A resend with the same token after the clock moved is another request
/// to DynamoDB (its timestamps differ): it is not applied, and says so.
#[tokio::test]
async fn a_resend_with_a_reused_token_and_new_timestamps_is_token_reused() {
    let (_t, client, clock) = setup().await;
    let created = client.create(&post("v1")).await.unwrap();
    let f = Post::fields();
    let update = || {
        client
            .update(Post::key(&created.post_id))
            .set(f.title, "v2")
            .idempotency_token("retitle-1")
    };
    update().await.unwrap();
    clock.set(T0 + 1);

    let err = update().await.unwrap_err();

    assert!(
        matches!(err, entity_client::Error::TokenReused { .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_put_of_a_new_item_is_created_now() {
    let (_t, client, _) = setup().await;
    let mut p = post("new");
    p.post_id = "p-9".into();

    let put = client.put(&p).await.unwrap();

    assert_eq!((put.created_at, put.updated_at), (at(T0), millis(T0)));
}

#[tokio::test]
async fn updates_and_patches_move_the_update_time_only() {
    let (t, client, clock) = setup().await;
    let created = client.create(&post("v1")).await.unwrap();
    let key = || Post::key(&created.post_id);
    let f = Post::fields();

    clock.set(T0 + 5);
    client.patch(key()).set(f.title, "v2").await.unwrap();
    let patched = stored_entity(&t.client, &key()).await.unwrap();
    assert_eq!(
        (
            patched.created_at,
            patched.updated_at,
            patched.title.as_str()
        ),
        (at(T0), millis(T0 + 5), "v2")
    );

    clock.set(T0 + 9);
    let updated: Post = client
        .update(key())
        .set(f.title, "v3")
        .return_new()
        .await
        .unwrap();
    assert_eq!(
        (updated.created_at, updated.updated_at),
        (at(T0), millis(T0 + 9))
    );
}

#[tokio::test]
async fn an_update_that_creates_the_item_sets_its_creation_time() {
    let (t, client, _) = setup().await;
    let f = Ticket::fields();

    client
        .update(Ticket::key("k-1"))
        .set(f.subject, "new")
        .await
        .unwrap();

    let ticket = stored_entity(&t.client, &Ticket::key("k-1")).await.unwrap();
    assert_eq!(ticket.opened, Some(millis(T0)));
    assert_eq!(ticket.touched, Some(at(T0)));
}

#[tokio::test]
async fn a_generated_uuid_is_lowercase_and_hyphenated() {
    let (_t, client, _) = setup().await;
    let ticket = Ticket {
        ticket_id: String::new(),
        subject: "s".into(),
        opened: None,
        touched: None,
    };

    let created = client.create(&ticket).await.unwrap();

    let id = &created.ticket_id;
    assert_eq!(id.len(), 36, "{id}");
    assert_eq!(id.matches('-').count(), 4, "{id}");
    assert_eq!(id, &id.to_lowercase());
    assert_eq!(
        (created.opened, created.touched),
        (Some(millis(T0)), Some(at(T0)))
    );
}

#[tokio::test]
async fn transactions_stamp_creates_puts_and_updates() {
    let (t, client, clock) = setup().await;
    let mut a = post("a");
    a.post_id = "p-a".into();
    let mut b = post("b");
    b.post_id = "p-b".into();
    client.create(&b).await.unwrap();

    clock.set(T0 + 30);
    client
        .transact_write()
        .create(&a)
        .update(
            Post::key("p-b"),
            Update::new().set(Post::fields().title, "b2"),
            None,
        )
        .await
        .unwrap();

    let a = stored_entity(&t.client, &Post::key("p-a")).await.unwrap();
    assert_eq!((a.created_at, a.updated_at), (at(T0 + 30), millis(T0 + 30)));
    let b = stored_entity(&t.client, &Post::key("p-b")).await.unwrap();
    assert_eq!((b.created_at, b.updated_at), (at(T0), millis(T0 + 30)));

    clock.set(T0 + 40);
    let mut replaced = post("b3");
    replaced.post_id = "p-b".into();
    // A transaction cannot read the stored creation time its keys need.
    let err = client.transact_write().put(&replaced).await.unwrap_err();
    assert!(
        matches!(err, entity_client::Error::Validation(_)),
        "{err:?}"
    );
    replaced.created_at = b.created_at;
    client.transact_write().put(&replaced).await.unwrap();
    let b = stored_entity(&t.client, &Post::key("p-b")).await.unwrap();
    assert_eq!(
        (b.created_at, b.updated_at, b.title.as_str()),
        (at(T0), millis(T0 + 40), "b3"),
        "a transaction's put keeps the creation time too"
    );
}

#[tokio::test]
async fn batch_puts_stamp_the_update_time_and_a_missing_creation_time() {
    let (t, client, _) = setup().await;
    let mut fresh = post("fresh");
    fresh.post_id = "p-1".into();
    let mut imported = post("imported");
    imported.post_id = "p-2".into();
    imported.created_at = at(1_600_000_000);

    client
        .batch_write()
        .put_all([&fresh, &imported])
        .await
        .unwrap();

    let fresh = stored_entity(&t.client, &Post::key("p-1")).await.unwrap();
    assert_eq!((fresh.created_at, fresh.updated_at), (at(T0), millis(T0)));
    let imported = stored_entity(&t.client, &Post::key("p-2")).await.unwrap();
    assert_eq!(
        (imported.created_at, imported.updated_at),
        (at(1_600_000_000), millis(T0)),
        "a creation time the entity holds is written as is"
    );
}
