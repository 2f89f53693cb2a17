//! Seed 001's user and related data as a collection on the table's keys,
//! with custom formats: a user, their profile and their orders under
//! `USER#123`, stored with the seed's exact keys and read with one Query.

use entity_client::{Collection, Entity};
mod common;

use common::stored_at;
use entity_tests::harness;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "USER",
    identity_attribute = "entityType",
    collection = "userItems"
)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "USER#{user_id}")]
struct User {
    user_id: String,
    name: String,
    email: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "PROFILE",
    identity_attribute = "entityType",
    collection = "userItems"
)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "PROFILE")]
struct Profile {
    user_id: String,
    bio: String,
    avatar: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "ORDER",
    identity_attribute = "entityType",
    collection = "userItems"
)]
#[pk(format = "USER#{user_id}")]
#[sk(format = "ORDER#{order_id}")]
struct Order {
    user_id: String,
    order_id: String,
    total: f64,
    items: Vec<String>,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "userItems", pk(user_id: String))]
enum UserItems {
    Users(User),
    Profiles(Profile),
    Orders(Order),
}

fn alice() -> User {
    User {
        user_id: "123".into(),
        name: "Alice".into(),
        email: "alice@example.com".into(),
    }
}

fn profile() -> Profile {
    Profile {
        user_id: "123".into(),
        bio: "Software engineer".into(),
        avatar: "https://...".into(),
    }
}

fn order(id: &str) -> Order {
    Order {
        user_id: "123".into(),
        order_id: id.into(),
        total: 99.99,
        items: vec!["item1".into(), "item2".into()],
    }
}

async fn seed_001(t: &harness::TestTable) {
    t.client
        .batch_write()
        .put(&alice())
        .put(&profile())
        .put(&order("order-1"))
        .put(&order("order-2"))
        .await
        .unwrap();
}

#[tokio::test]
async fn stores_exactly_the_keys_of_seed_001() {
    let t = harness::table(&[User::MODEL, Profile::MODEL, Order::MODEL]).await;
    seed_001(&t).await;
    for (sk, entity) in [
        ("USER#123", "USER"),
        ("PROFILE", "PROFILE"),
        ("ORDER#order-1", "ORDER"),
        ("ORDER#order-2", "ORDER"),
    ] {
        let item = stored_at(&t.client, "USER#123", sk).await;
        assert_eq!(item["entityType"].as_s().unwrap(), entity);
    }
}

#[tokio::test]
async fn one_query_on_the_table_returns_the_user_their_profile_and_orders() {
    let t = harness::table(&[User::MODEL, Profile::MODEL, Order::MODEL]).await;
    seed_001(&t).await;
    // Another user's partition stays out.
    let mut other = alice();
    other.user_id = "456".into();
    t.client.put(&other).await.unwrap();

    // A table query may read consistently (a global index may not).
    let all = t
        .client
        .query(UserItems::query("123"))
        .consistent_read(true)
        .grouped()
        .await
        .unwrap();
    assert_eq!(all.users, [alice()]);
    assert_eq!(all.profiles, [profile()]);
    assert_eq!(all.orders, [order("order-1"), order("order-2")]);
}

#[tokio::test]
async fn items_come_back_in_sort_key_order_as_the_members_they_are() {
    let t = harness::table(&[User::MODEL, Profile::MODEL, Order::MODEL]).await;
    seed_001(&t).await;
    let items = t.client.query(UserItems::query("123")).all().await.unwrap();
    assert_eq!(
        items,
        [
            UserItems::Orders(order("order-1")),
            UserItems::Orders(order("order-2")),
            UserItems::Profiles(profile()),
            UserItems::Users(alice()),
        ]
    );
}

#[test]
fn the_query_reads_the_whole_table_partition() {
    let query = UserItems::query("123");
    assert_eq!(query.index_name(), None);
    assert_eq!(query.partition_key(), ("pk", "USER#123"));
    assert_eq!(query.sort_condition(), None);
    assert_eq!(<UserItems as Collection>::PATH, ["userItems"]);
}
