//! Sparse indexes and index policy against a server: an `Option` composite
//! leaves the item out of its index while it is `None` (on every write that
//! composes the item), a group setter given `None` takes the item out and
//! `Some` puts it back, and under `policy = "sparse"` a composite set alone
//! takes the item out of the index instead of leaving a stale key.

mod common;

use common::{eventually, stored, stored_entity};
use entity_client::expr::{Placeholders, Update};
use entity_client::{Client, Entity};
use entity_tests::harness::table;

/// Tickets: assigned ones are in `by_assignee` (an optional partition key
/// composite of a GSI), closed ones in `by_closed` (an optional LSI sort
/// key composite).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test", rename_all = "camelCase")]
#[pk(tenant)]
#[sk(ticket_id)]
#[index(by_assignee(gsi = "gsi1", pk(assignee), sk(ticket_id)))]
#[index(by_closed(lsi = "lsi1", sk(closed_at)))]
struct Ticket {
    tenant: String,
    ticket_id: String,
    assignee: Option<String>,
    closed_at: Option<u64>,
    title: String,
}

fn ticket(id: &str, assignee: Option<&str>, closed_at: Option<u64>) -> Ticket {
    Ticket {
        tenant: "acme".into(),
        ticket_id: id.into(),
        assignee: assignee.map(Into::into),
        closed_at,
        title: format!("ticket {id}"),
    }
}

/// Players ranked within their team; `policy = "sparse"` lets each
/// composite be set alone, which takes the player out of the ranking.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "test", rename_all = "camelCase")]
#[pk(id)]
#[index(by_rank(gsi = "gsi1", policy = "sparse", pk(team), sk(rank, level)))]
struct Player {
    id: String,
    team: String,
    rank: u32,
    level: Option<u8>,
    name: String,
}

fn player(id: &str, rank: u32, level: Option<u8>) -> Player {
    Player {
        id: id.into(),
        team: "red".into(),
        rank,
        level,
        name: format!("player {id}"),
    }
}

async fn assigned_to(client: &Client, assignee: &str) -> Vec<String> {
    let tickets = client
        .query(Ticket::by_assignee(assignee))
        .all()
        .await
        .unwrap();
    tickets.into_iter().map(|t| t.ticket_id).collect()
}

async fn closed(client: &Client) -> Vec<String> {
    let tickets = client
        .query(Ticket::by_closed("acme").closed_at().gte(0u64))
        .all()
        .await
        .unwrap();
    tickets.into_iter().map(|t| t.ticket_id).collect()
}

async fn ranked(client: &Client) -> Vec<String> {
    let players = client.query(Player::by_rank("red")).all().await.unwrap();
    players.into_iter().map(|p| p.id).collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn a_sparse_index_holds_exactly_the_items_with_the_field_set() {
    let t = table(&[Ticket::MODEL]).await;
    let c = &t.client;
    c.put(&ticket("t1", Some("alice"), None)).await.unwrap();
    c.put(&ticket("t2", None, Some(20))).await.unwrap();
    c.create(&ticket("t3", Some("alice"), Some(30)))
        .await
        .unwrap();
    c.create(&ticket("t4", None, None)).await.unwrap();
    c.batch_write()
        .put_all(&[
            ticket("t5", Some("bob"), None),
            ticket("t6", None, Some(60)),
        ])
        .await
        .unwrap();
    c.transact_write()
        .create(&ticket("t7", Some("alice"), None))
        .put(&ticket("t8", None, None))
        .await
        .unwrap();

    eventually(strings(&["t1", "t3", "t7"]), || assigned_to(c, "alice")).await;
    eventually(strings(&["t5"]), || assigned_to(c, "bob")).await;
    assert_eq!(closed(c).await, strings(&["t2", "t3", "t6"]));

    // An item out of an index holds none of its key attributes.
    let t4 = stored(c, &Ticket::key("acme", "t4")).await.unwrap();
    for attribute in ["gsi1pk", "gsi1sk", "lsi1sk", "assignee", "closedAt"] {
        assert!(!t4.contains_key(attribute), "{attribute} in {t4:?}");
    }
    let t3 = stored(c, &Ticket::key("acme", "t3")).await.unwrap();
    for attribute in ["gsi1pk", "gsi1sk", "lsi1sk"] {
        assert!(t3.contains_key(attribute), "{attribute} missing in {t3:?}");
    }
}

#[tokio::test]
async fn a_group_setter_given_none_takes_the_item_out_and_some_puts_it_back() {
    let t = table(&[Ticket::MODEL]).await;
    let c = &t.client;
    let original = ticket("t1", Some("alice"), Some(10));
    c.put(&original).await.unwrap();

    c.patch(Ticket::key("acme", "t1"))
        .apply(Ticket::set_assignee(None, "t1"))
        .apply(Ticket::set_closed_at(None))
        .await
        .unwrap();
    let item = stored(c, &Ticket::key("acme", "t1")).await.unwrap();
    let expected = ticket("t1", None, None);
    assert_eq!(item, expected.to_item().unwrap());
    eventually(Vec::new(), || assigned_to(c, "alice")).await;
    assert_eq!(closed(c).await, Vec::<String>::new());

    // `Some` in every form a group setter takes.
    c.patch(Ticket::key("acme", "t1"))
        .apply(Ticket::set_assignee("bob", "t1"))
        .apply(Ticket::set_closed_at(Some(40u64)))
        .await
        .unwrap();
    let expected = ticket("t1", Some("bob"), Some(40));
    let item = stored(c, &Ticket::key("acme", "t1")).await.unwrap();
    assert_eq!(item, expected.to_item().unwrap());
    eventually(strings(&["t1"]), || assigned_to(c, "bob")).await;
    assert_eq!(closed(c).await, strings(&["t1"]));

    let carol = Some("carol".to_owned());
    c.patch(Ticket::key("acme", "t1"))
        .apply(Ticket::set_assignee(&carol, "t1"))
        .await
        .unwrap();
    eventually(strings(&["t1"]), || assigned_to(c, "carol")).await;
    eventually(Vec::new(), || assigned_to(c, "bob")).await;
    assert_eq!(
        stored_entity(c, &Ticket::key("acme", "t1")).await,
        Some(ticket("t1", Some("carol"), Some(40)))
    );
}

#[tokio::test]
async fn under_the_sparse_policy_a_composite_set_alone_takes_the_item_out() {
    let t = table(&[Player::MODEL]).await;
    let c = &t.client;
    c.put(&player("p1", 1, Some(3))).await.unwrap();
    c.put(&player("p2", 2, None)).await.unwrap();
    c.put(&player("p3", 3, Some(1))).await.unwrap();
    eventually(strings(&["p1", "p3"]), || ranked(c)).await;

    // One composite alone: the index keys go, never stale.
    let f = Player::fields();
    c.patch(Player::key("p1")).set(f.rank, 7u32).await.unwrap();
    let item = stored(c, &Player::key("p1")).await.unwrap();
    assert!(!item.contains_key("gsi1pk") && !item.contains_key("gsi1sk"));
    eventually(strings(&["p3"]), || ranked(c)).await;

    // Another form of update on a lone composite does the same.
    c.patch(Player::key("p3")).remove(f.level).await.unwrap();
    eventually(Vec::new(), || ranked(c)).await;

    // The group setter puts it back with every composite.
    c.patch(Player::key("p1"))
        .apply(Player::set_team_rank_level("red", 7u32, Some(4u8)))
        .await
        .unwrap();
    let mut expected = player("p1", 7, Some(4));
    expected.team = "red".into();
    let item = stored(c, &Player::key("p1")).await.unwrap();
    assert_eq!(item, expected.to_item().unwrap());
    eventually(strings(&["p1"]), || ranked(c)).await;

    // A whole-item write puts it back too.
    c.put(&player("p3", 3, Some(2))).await.unwrap();
    eventually(strings(&["p3", "p1"]), || ranked(c)).await;
}

#[test]
fn a_lone_composite_update_renders_the_removal_of_the_index_keys() {
    let f = Player::fields();
    let update = Update::<Player>::new().set(f.rank, 7u32);
    let mut p = Placeholders::default();
    assert_eq!(
        update.render(&mut p).unwrap(),
        "SET #n0 = :v0 REMOVE #n1, #n2"
    );
    let names: Vec<&str> = update.attributes().collect();
    assert_eq!(names, ["rank", "gsi1pk", "gsi1sk"]);

    // The group setter given `None` removes the field and the index keys,
    // and sets the other composites.
    let update = Update::<Player>::new()
        .set(f.name, "x")
        .apply(Player::set_team_rank_level("red", 1u32, None));
    let rendered = update.render(&mut Placeholders::default()).unwrap();
    assert_eq!(
        rendered,
        "SET #n0 = :v0, #n1 = :v1, #n2 = :v2 REMOVE #n3, #n4, #n5"
    );
    let names: Vec<&str> = update.attributes().collect();
    assert_eq!(names, ["name", "team", "rank", "level", "gsi1pk", "gsi1sk"]);
}

#[test]
fn keys_of_an_optional_composite_round_trip() {
    let assigned = ticket("t1", Some("a b#c"), Some(7));
    let pk = assigned.by_assignee_pk().unwrap();
    assert_eq!(pk, Ticket::by_assignee_pk_of("a b#c"));
    assert_eq!(
        Ticket::parse_by_assignee_pk(&pk).unwrap(),
        ("a b#c".to_owned(),)
    );
    assert!(Ticket::is_by_assignee_pk(&pk));
    // The sort key holds no optional composite: always composed.
    assert_eq!(assigned.by_assignee_sk(), Ticket::by_assignee_sk_of("t1"));
    let sk = assigned.by_closed_sk().unwrap();
    assert_eq!(Ticket::parse_by_closed_sk(&sk).unwrap(), (7u64,));

    let unassigned = ticket("t2", None, None);
    assert_eq!(unassigned.by_assignee_pk(), None);
    assert_eq!(unassigned.by_closed_sk(), None);

    let p = player("p1", 2, Some(5));
    let sk = p.by_rank_sk().unwrap();
    assert_eq!(Player::parse_by_rank_sk(&sk).unwrap(), (2u32, 5u8));
    assert_eq!(player("p2", 2, None).by_rank_sk(), None);
}

#[test]
fn items_round_trip_with_none() {
    for t in [
        ticket("t1", None, None),
        ticket("t2", Some("alice"), None),
        ticket("t3", None, Some(9)),
        ticket("t4", Some("bob"), Some(1)),
    ] {
        let item = t.to_item().unwrap();
        assert_eq!(item.contains_key("gsi1pk"), t.assignee.is_some());
        assert_eq!(item.contains_key("gsi1sk"), t.assignee.is_some());
        assert_eq!(item.contains_key("lsi1sk"), t.closed_at.is_some());
        assert_eq!(Ticket::from_item(item).unwrap(), t);
    }
    // Every composite of the index, optional or not, goes with the item.
    let item = player("p1", 4, None).to_item().unwrap();
    assert!(!item.contains_key("gsi1pk") && !item.contains_key("gsi1sk"));
    assert_eq!(Player::from_item(item).unwrap(), player("p1", 4, None));
}

/// The generated sparse-index code compiles where prelude names are
/// shadowed, and under `deny(warnings)`.
#[deny(warnings, unused_qualifications)]
#[allow(dead_code, non_camel_case_types)]
mod hygiene {
    use entity_client::Entity;

    struct Result;
    struct Option;
    struct Some;
    struct None;
    struct Ok;
    struct Err;
    struct String;
    struct Vec;

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(id)]
    #[sk()]
    #[index(by_tag(gsi = "gsi1", policy = "sparse", pk(tag), sk(n)))]
    #[index(by_n(lsi = "lsi1", sk(n)))]
    pub struct Tagged {
        pub id: std::string::String,
        pub tag: core::option::Option<std::string::String>,
        pub n: u32,
    }

    /// An optional unique field in a sparse index: the group setter takes
    /// it as an optional guard.
    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene", unique(email))]
    #[pk(id)]
    #[index(by_mail(gsi = "gsi1", pk(email), sk(rank)))]
    pub struct Member {
        pub id: std::string::String,
        pub email: core::option::Option<std::string::String>,
        pub rank: u32,
    }
}

#[test]
fn sparse_code_is_hygienic() {
    use hygiene::Tagged;
    let t = Tagged {
        id: "a".into(),
        tag: None,
        n: 1,
    };
    assert!(!t.to_item().unwrap().contains_key("gsi1pk"));
    assert_eq!(t.by_tag_pk(), None);
    let f = Tagged::fields();
    let update = Update::<Tagged>::new()
        .set(f.tag, "x")
        .apply(Tagged::set_tag_n(None, 2u32));
    assert!(update.render(&mut Placeholders::default()).is_ok());

    // `None` for the guard: the update requires the item to have no email,
    // and removes the index keys.
    let update = Update::<hygiene::Member>::new().apply(hygiene::Member::set_rank(3u32, None));
    let mut p = Placeholders::default();
    assert_eq!(
        update.render(&mut p).unwrap(),
        "SET #n0 = :v0 REMOVE #n1, #n2"
    );
    let guard = update.guards().unwrap();
    assert!(format!("{guard:?}").contains("email"), "{guard:?}");
}
