//! Features composed on one entity: each test declares two (or more)
//! features and runs the operations where they meet, asserting on what is
//! stored and what every read then says. Each case failed before the write
//! pipeline decided these rules in one place (`ops::lifecycle`).

mod common;

use chrono::{DateTime, TimeZone, Utc};
use common::stored;
use entity_client::{Client, Entity, EpochSeconds, Error};
use entity_tests::clock::TestClock;
use entity_tests::harness::{table, TestTable};

const T0: u64 = 1_900_000_000;
const DAY: u64 = 86_400;

/// Soft delete × unique × TTL × a sparse index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", soft_delete, unique(email))]
#[pk(user_id)]
#[sk()]
#[index(by_team(gsi = "gsi1", pk(team), sk(user_id)))]
struct Member {
    user_id: String,
    email: String,
    team: Option<String>,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
}

fn member(id: &str, email: &str, team: Option<&str>) -> Member {
    Member {
        user_id: id.into(),
        email: email.into(),
        team: team.map(Into::into),
        expires_at: None,
    }
}

/// A sliding TTL × a soft delete that sets its own expiry.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", soft_delete(expire_after = "30d"))]
#[pk(session_id)]
#[sk()]
struct Session {
    session_id: String,
    user: String,
    #[entity(ttl(after = "1d"))]
    expires_at: Option<EpochSeconds>,
}

/// `created_at` × an index sorted by it × upsert.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx")]
#[pk(post_id)]
#[sk()]
#[index(feed(gsi = "gsi1", pk(author), sk(created_at)))]
struct Post {
    post_id: String,
    author: String,
    #[entity(created_at)]
    created_at: DateTime<Utc>,
    body: String,
}

async fn at_t0(models: &[&entity_client::EntityModel]) -> (TestTable, Client, TestClock) {
    let t = table(models).await;
    let clock = TestClock::at(T0);
    let client = t.client.clone().with_clock(clock.clone());
    (t, client, clock)
}

#[tokio::test]
async fn a_sliding_ttl_and_a_soft_delete_expiry_delete_and_restore() {
    let (t, client, clock) = at_t0(&[Session::MODEL]).await;
    let session = Session {
        session_id: "s1".into(),
        user: "ada".into(),
        expires_at: None,
    };
    let written = client.create(&session).await.expect("create");
    assert_eq!(written.expires_at.map(|e| e.0), Some((T0 + DAY) as i64));
    clock.set(T0 + 10);
    client
        .delete(Session::key("s1"))
        .await
        .expect("a delete sets one TTL, the delete's");
    let item = stored(&t.client, &Session::key("s1")).await.expect("kept");
    assert_eq!(
        item.get("expires_at"),
        Some(&common::n(&(T0 + 10 + 30 * DAY).to_string())),
        "the soft delete's expiry, not the sliding one"
    );
    assert_eq!(client.get(Session::key("s1")).await.expect("get"), None);
    let restored = client.restore(Session::key("s1")).await.expect("restore");
    assert_eq!(
        restored.expires_at.map(|e| e.0),
        Some((T0 + 10 + DAY) as i64),
        "a restore is a write: the sliding TTL moves"
    );
}

#[tokio::test]
async fn a_put_over_a_soft_deleted_item_takes_its_unique_values_back() {
    let (_t, client, _clock) = at_t0(&[Member::MODEL]).await;
    let ada = member("u1", "ada@example.com", Some("core"));
    client.create(&ada).await.expect("create");
    client.delete(Member::key("u1")).await.expect("soft delete");
    // The value is free once the holder is deleted.
    let other = member("u2", "ada@example.com", None);
    client
        .create(&other)
        .await
        .expect("the freed value is taken");

    let deleted = client
        .get(Member::key("u1"))
        .include_deleted(true)
        .await
        .expect("get")
        .expect("deleted item");
    let err = client.put(&deleted).await.expect_err("the value is u2's");
    assert!(
        matches!(
            err,
            Error::UniqueViolation {
                constraint: "email",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(client.get(Member::key("u1")).await.expect("get"), None);
    let err = client.upsert(&deleted).await.expect_err("upsert too");
    assert!(matches!(err, Error::UniqueViolation { .. }), "{err:?}");
    let holder = client
        .get_unique(Member::by_email("ada@example.com"))
        .await
        .expect("get_unique");
    assert_eq!(holder.map(|m| m.user_id).as_deref(), Some("u2"));

    // Once u2 lets it go, a put revives u1 and takes the value back.
    client.delete(Member::key("u2")).await.expect("delete u2");
    client.put(&deleted).await.expect("put revives");
    let holder = client
        .get_unique(Member::by_email("ada@example.com"))
        .await
        .expect("get_unique");
    assert_eq!(holder, Some(ada.clone()));
    let err = client
        .create(&member("u3", "ada@example.com", None))
        .await
        .expect_err("held again");
    assert!(matches!(err, Error::UniqueViolation { .. }), "{err:?}");
}

#[tokio::test]
async fn an_upsert_over_a_soft_deleted_item_writes_a_live_item() {
    let (t, client, _clock) = at_t0(&[Member::MODEL]).await;
    client
        .create(&member("u1", "ada@example.com", Some("core")))
        .await
        .expect("create");
    client.delete(Member::key("u1")).await.expect("soft delete");
    let back = member("u1", "ada@example.com", Some("web"));
    client.upsert(&back).await.expect("upsert");
    let item = stored(&t.client, &Member::key("u1")).await.expect("item");
    assert!(!item.contains_key("__deleted_at"), "{item:?}");
    assert_eq!(
        client.get(Member::key("u1")).await.expect("get"),
        Some(back.clone())
    );
    let team = client
        .query(Member::by_team("web"))
        .consistent_read(false)
        .all()
        .await
        .expect("query");
    assert_eq!(team, vec![back.clone()]);
    assert_eq!(
        client
            .get_unique(Member::by_email("ada@example.com"))
            .await
            .expect("get_unique"),
        Some(back)
    );
}

#[tokio::test]
async fn patch_and_update_leave_a_soft_deleted_item_deleted_and_out_of_indexes() {
    let (t, client, _clock) = at_t0(&[Member::MODEL]).await;
    client
        .create(&member("u1", "ada@example.com", Some("core")))
        .await
        .expect("create");
    client.delete(Member::key("u1")).await.expect("soft delete");
    let before = stored(&t.client, &Member::key("u1")).await.expect("item");
    assert!(!before.contains_key("gsi1pk"), "{before:?}");

    let err = client
        .patch(Member::key("u1"))
        .apply(Member::set_team("web", "u1"))
        .return_new()
        .await
        .expect_err("patch of a deleted item");
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    let err = client
        .update(Member::key("u1"))
        .apply(Member::set_team("web", "u1"))
        .await
        .expect_err("update of a deleted item");
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    assert_eq!(
        stored(&t.client, &Member::key("u1")).await,
        Some(before),
        "nothing written"
    );
}

#[tokio::test]
async fn purge_of_a_soft_deleted_item_leaves_a_value_another_item_took() {
    let (_t, client, _clock) = at_t0(&[Member::MODEL]).await;
    client
        .create(&member("u1", "ada@example.com", None))
        .await
        .expect("create");
    client.delete(Member::key("u1")).await.expect("soft delete");
    client
        .create(&member("u2", "ada@example.com", None))
        .await
        .expect("the freed value");
    client.purge(Member::key("u1")).await.expect("purge");
    let gone = client
        .get(Member::key("u1"))
        .include_deleted(true)
        .await
        .expect("get");
    assert_eq!(gone, None);
    let holder = client
        .get_unique(Member::by_email("ada@example.com"))
        .await
        .expect("get_unique");
    assert_eq!(holder.map(|m| m.user_id).as_deref(), Some("u2"));
}

#[tokio::test]
async fn a_unique_value_of_an_expired_item_is_free() {
    let (t, client, clock) = at_t0(&[Member::MODEL]).await;
    let mut temp = member("u1", "ada@example.com", None);
    temp.expires_at = Some(EpochSeconds((T0 + 60) as i64));
    client.create(&temp).await.expect("create");
    let err = client
        .create(&member("u2", "ada@example.com", None))
        .await
        .expect_err("held while u1 lives");
    assert!(matches!(err, Error::UniqueViolation { .. }), "{err:?}");

    // Expired, not yet swept: every read says the value is free, and so
    // does a create.
    clock.set(T0 + 61);
    assert_eq!(
        client
            .get_unique(Member::by_email("ada@example.com"))
            .await
            .expect("get_unique"),
        None
    );
    let u2 = member("u2", "ada@example.com", None);
    client
        .create(&u2)
        .await
        .expect("an expired holder frees it");
    assert_eq!(
        client
            .get_unique(Member::by_email("ada@example.com"))
            .await
            .expect("get_unique"),
        Some(u2)
    );

    // Swept by DynamoDB's TTL process (a raw delete here): its sentinel
    // does not claim the value forever.
    client.delete(Member::key("u2")).await.expect("delete u2");
    let mut u3 = member("u3", "grace@example.com", None);
    u3.expires_at = Some(EpochSeconds((T0 + 120) as i64));
    client.create(&u3).await.expect("create u3");
    t.client
        .sdk()
        .delete_item()
        .table_name(t.client.table())
        .set_key(Some(Member::key("u3").to_item()))
        .send()
        .await
        .expect("the sweep");
    client
        .create(&member("u4", "grace@example.com", None))
        .await
        .expect("a swept holder frees it");
}

#[tokio::test]
async fn an_upsert_that_clears_a_sparse_composite_leaves_the_index() {
    let (t, client, _clock) = at_t0(&[Member::MODEL]).await;
    client
        .upsert(&member("u1", "ada@example.com", Some("core")))
        .await
        .expect("upsert");
    client
        .upsert(&member("u1", "ada@example.com", None))
        .await
        .expect("upsert without a team");
    let item = stored(&t.client, &Member::key("u1")).await.expect("item");
    assert!(!item.contains_key("gsi1pk"), "{item:?}");
    assert!(!item.contains_key("gsi1sk"), "{item:?}");
    let team = client
        .query(Member::by_team("core"))
        .all()
        .await
        .expect("query");
    assert_eq!(team, vec![]);
}

#[tokio::test]
async fn an_upsert_keeps_the_stored_created_at_in_its_keys_and_its_result() {
    let (t, client, clock) = at_t0(&[Post::MODEL]).await;
    let post = Post {
        post_id: "p1".into(),
        author: "ada".into(),
        created_at: DateTime::default(),
        body: "first".into(),
    };
    let created = client.create(&post).await.expect("create");
    clock.set(T0 + 100);
    let mut edit = created.clone();
    edit.body = "edited".into();
    edit.created_at = Utc.timestamp_opt((T0 + 50) as i64, 0).unwrap();
    let written = client.upsert(&edit).await.expect("upsert");
    assert_eq!(written.created_at, created.created_at, "the stored one");
    let item = stored(&t.client, &Post::key("p1")).await.expect("item");
    let read = Post::from_item(item.clone()).expect("read");
    assert_eq!(read, written);
    assert_eq!(
        item.get("gsi1sk"),
        Post::from_item(created.to_item().expect("item"))
            .expect("read")
            .to_item()
            .expect("item")
            .get("gsi1sk"),
        "the feed key composed from the stored created_at"
    );
    let feed = client.query(Post::feed("ada")).all().await.expect("feed");
    assert_eq!(feed, vec![written]);
}

#[tokio::test]
async fn a_batch_purges_a_soft_delete_entity() {
    let (_t, client, _clock) = at_t0(&[Session::MODEL]).await;
    for id in ["s1", "s2"] {
        let session = Session {
            session_id: id.into(),
            user: "ada".into(),
            expires_at: None,
        };
        client.create(&session).await.expect("create");
    }
    client
        .delete(Session::key("s1"))
        .await
        .expect("soft delete");
    client
        .batch_write()
        .purge(Session::key("s1"))
        .purge(Session::key("s2"))
        .await
        .expect("batch purge");
    for id in ["s1", "s2"] {
        let gone = client
            .get(Session::key(id))
            .include_deleted(true)
            .await
            .expect("get");
        assert_eq!(gone, None);
    }
}

/// Version 1 of a soft-delete entity with a unique value.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", name = "Card", version = 1, soft_delete, unique(code))]
#[pk(format = "CARD#{card_id}")]
#[sk(format = "card")]
struct CardV1 {
    card_id: String,
    owner: String,
    code: String,
}

/// Version 2: the same table key and a new index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", name = "Card", version = 2, upgrade_from = CardV1, soft_delete, unique(code))]
#[pk(format = "CARD#{card_id}")]
#[sk(format = "card")]
#[index(by_owner(gsi = "gsi1", pk(owner), sk(card_id)))]
struct Card {
    card_id: String,
    owner: String,
    code: String,
}

impl From<CardV1> for Card {
    fn from(v1: CardV1) -> Self {
        Card {
            card_id: v1.card_id,
            owner: v1.owner,
            code: v1.code,
        }
    }
}

/// Version 2 under a new table key: the items move.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", name = "Card", version = 2, upgrade_from = CardV1, soft_delete, unique(code))]
#[pk(owner)]
#[sk(card_id)]
#[index(with_code(gsi = "gsi1", pk(code)))]
struct MovedCard {
    card_id: String,
    owner: String,
    code: String,
}

impl From<CardV1> for MovedCard {
    fn from(v1: CardV1) -> Self {
        MovedCard {
            card_id: v1.card_id,
            owner: v1.owner,
            code: v1.code,
        }
    }
}

fn card(id: &str, code: &str) -> CardV1 {
    CardV1 {
        card_id: id.into(),
        owner: "ada".into(),
        code: code.into(),
    }
}

/// Two cards, the second soft-deleted and its code then taken by a third.
async fn cards(client: &Client) {
    client.create(&card("c1", "A")).await.expect("create c1");
    client.create(&card("c2", "B")).await.expect("create c2");
    client.delete(CardV1::key("c2")).await.expect("soft delete");
    client
        .create(&card("c3", "B"))
        .await
        .expect("the freed code");
}

#[tokio::test]
async fn a_migration_in_place_keeps_a_soft_deleted_item_deleted() {
    let (t, client, _clock) = at_t0(&[CardV1::MODEL, Card::MODEL]).await;
    cards(&client).await;
    let report = client
        .migrate::<Card>()
        .backfill_unique(true)
        .await
        .expect("migrate");
    assert_eq!(report.counts.rewritten, 3);
    assert!(
        report.unique_conflicts.is_empty(),
        "{:?}",
        report.unique_conflicts
    );
    assert_eq!(client.get(Card::key("c2")).await.expect("get"), None);
    let live: Vec<String> = client
        .scan::<Card>()
        .all()
        .await
        .expect("scan")
        .into_iter()
        .map(|c| c.card_id)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(live, ["c1", "c3"]);
    let deleted = client
        .scan::<Card>()
        .only_deleted()
        .all()
        .await
        .expect("deleted");
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    assert_eq!(deleted[0].card_id, "c2");
    let item = stored(&t.client, &Card::key("c2")).await.expect("kept");
    assert!(item.contains_key("__deleted_at"), "{item:?}");
    assert!(
        !item.contains_key("gsi1pk"),
        "out of the new index: {item:?}"
    );
    let holder = client
        .get_unique(Card::by_code("B"))
        .await
        .expect("get_unique");
    assert_eq!(holder.map(|c| c.card_id).as_deref(), Some("c3"));
}

#[tokio::test]
async fn a_migration_to_new_keys_keeps_a_soft_deleted_item_deleted() {
    let (t, client, _clock) = at_t0(&[CardV1::MODEL, MovedCard::MODEL]).await;
    cards(&client).await;
    client.migrate::<MovedCard>().await.expect("migrate");
    assert_eq!(
        client.get(MovedCard::key("ada", "c2")).await.expect("get"),
        None
    );
    let item = stored(&t.client, &MovedCard::key("ada", "c2"))
        .await
        .expect("moved");
    assert!(item.contains_key("__deleted_at"), "{item:?}");
    assert!(!item.contains_key("gsi1pk"), "{item:?}");
    let by_code = client
        .query(MovedCard::with_code("B"))
        .all()
        .await
        .expect("query");
    assert_eq!(
        by_code.into_iter().map(|c| c.card_id).collect::<Vec<_>>(),
        ["c3"]
    );
    let holder = client
        .get_unique(MovedCard::by_code("B"))
        .await
        .expect("get_unique");
    assert_eq!(holder.map(|c| c.card_id).as_deref(), Some("c3"));
    let restored = client.restore(MovedCard::key("ada", "c2")).await;
    assert!(
        matches!(restored, Err(Error::UniqueViolation { .. })),
        "its code is c3's: {restored:?}"
    );
}

#[tokio::test]
async fn a_transaction_leaves_a_soft_deleted_item_deleted_and_purges_it() {
    let (t, client, _clock) = at_t0(&[Session::MODEL]).await;
    let session = Session {
        session_id: "s1".into(),
        user: "ada".into(),
        expires_at: None,
    };
    client.create(&session).await.expect("create");
    client
        .delete(Session::key("s1"))
        .await
        .expect("soft delete");
    let before = stored(&t.client, &Session::key("s1")).await.expect("kept");
    let f = Session::fields();
    let r = client
        .transact_write()
        .update(
            Session::key("s1"),
            entity_client::expr::Update::new().set(f.user, "grace"),
            None,
        )
        .await;
    assert!(r.is_err(), "a deleted item is not changed: {r:?}");
    assert_eq!(stored(&t.client, &Session::key("s1")).await, Some(before));
    client
        .transact_write()
        .purge(Session::key("s1"), None)
        .await
        .expect("purge");
    assert_eq!(stored(&t.client, &Session::key("s1")).await, None);
}

#[tokio::test]
async fn a_transaction_create_takes_a_value_whose_holder_expired() {
    let (_t, client, clock) = at_t0(&[Member::MODEL]).await;
    let mut temp = member("u1", "ada@example.com", None);
    temp.expires_at = Some(EpochSeconds((T0 + 60) as i64));
    client.create(&temp).await.expect("create");
    let held = client
        .transact_write()
        .create(&member("u2", "ada@example.com", None))
        .await;
    assert!(
        matches!(held, Err(Error::UniqueViolation { .. })),
        "{held:?}"
    );
    clock.set(T0 + 61);
    client
        .transact_write()
        .create(&member("u2", "ada@example.com", None))
        .await
        .expect("the expired holder's value");
    let holder = client
        .get_unique(Member::by_email("ada@example.com"))
        .await
        .expect("get_unique");
    assert_eq!(holder.map(|m| m.user_id).as_deref(), Some("u2"));
}

#[tokio::test]
async fn a_read_transaction_hides_what_every_read_hides() {
    let (_t, client, clock) = at_t0(&[Member::MODEL]).await;
    let mut temp = member("u1", "ada@example.com", None);
    temp.expires_at = Some(EpochSeconds((T0 + 60) as i64));
    client.create(&temp).await.expect("create u1");
    client
        .create(&member("u2", "grace@example.com", None))
        .await
        .expect("create u2");
    client.delete(Member::key("u2")).await.expect("soft delete");
    clock.set(T0 + 61);
    let read = || {
        client
            .transact_get()
            .get(Member::key("u1"))
            .get(Member::key("u2"))
    };
    let out = read().await.expect("transact get");
    assert_eq!(out.entity::<Member>(0).expect("u1"), None, "expired");
    assert_eq!(out.entity::<Member>(1).expect("u2"), None, "deleted");
    let out = read()
        .include_expired(true)
        .include_deleted(true)
        .await
        .expect("transact get");
    assert!(out.entity::<Member>(0).expect("u1").is_some());
    assert!(out.entity::<Member>(1).expect("u2").is_some());
}
