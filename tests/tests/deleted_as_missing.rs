//! A soft-deleted item reads as missing to writes: a put's, an upsert's or
//! a transaction's condition (`put_if`, `condition_check`) meets it as it
//! would meet no item at all. Each condition is tried on a key that was
//! never written (the server's own answer) and on a soft-deleted item, and
//! the two must agree; a live item still meets it as it is.

use entity_client::expr::Condition;
use entity_client::{Client, Entity, Error};
use entity_tests::harness::table;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "gone", soft_delete)]
#[pk(id)]
#[sk()]
struct Card {
    id: String,
    text: String,
}

fn card(id: &str, text: &str) -> Card {
    Card {
        id: id.into(),
        text: text.into(),
    }
}

/// The conditions tried, with whether each holds on a missing item (as
/// DynamoDB evaluates it: a comparison with a missing attribute is false,
/// but `<>` is true) and on a live item whose text is "t".
fn conditions() -> Vec<(&'static str, Condition<Card>, bool, bool)> {
    let f = Card::fields();
    vec![
        ("text = t", f.text.eq("t"), false, true),
        ("text <> t", f.text.ne("t"), true, false),
        ("text < z", f.text.lt("z"), false, true),
        ("exists(text)", f.text.exists(), false, true),
        ("not exists(text)", f.text.exists().not(), true, false),
        ("begins_with(text, t)", f.text.begins_with("t"), false, true),
        ("not (text = t)", f.text.eq("t").not(), true, false),
        (
            "text = x or not exists(text)",
            f.text.eq("x").or(f.text.exists().not()),
            true,
            false,
        ),
    ]
}

/// A live item, and a soft-deleted one, with text "t" at `live-{n}` and
/// `deleted-{n}`.
async fn items(client: &Client, n: usize) {
    client.put(&card(&format!("live-{n}"), "t")).await.unwrap();
    client
        .put(&card(&format!("deleted-{n}"), "t"))
        .await
        .unwrap();
    client
        .delete(Card::key(format!("deleted-{n}")))
        .await
        .unwrap();
}

/// Whether a single put of `id` under the condition was written.
async fn put(client: &Client, id: &str, condition: Condition<Card>) -> bool {
    match client.put(&card(id, "new")).condition(condition).await {
        Ok(_) => true,
        Err(Error::ConditionFailed { old, .. }) => {
            // A deleted item is not handed back: it reads as missing.
            assert!(
                old.is_none() || id.starts_with("live"),
                "{id}: the deleted item came back as `old`"
            );
            false
        }
        Err(e) => panic!("{id}: {e}"),
    }
}

#[tokio::test]
async fn a_put_meets_a_deleted_item_as_a_missing_one() {
    let t = table(&[Card::MODEL]).await;
    let c = &t.client;
    for (n, (what, condition, on_missing, on_live)) in conditions().into_iter().enumerate() {
        items(c, n).await;
        let missing = put(c, &format!("missing-{n}"), condition.clone()).await;
        assert_eq!(missing, on_missing, "{what}: on no item (the server)");
        let deleted = put(c, &format!("deleted-{n}"), condition.clone()).await;
        assert_eq!(deleted, missing, "{what}: on a deleted item");
        let live = put(c, &format!("live-{n}"), condition).await;
        assert_eq!(live, on_live, "{what}: on a live item");
        // A put that was written revived the item; one that was refused
        // left it deleted.
        let read = c.get(Card::key(format!("deleted-{n}"))).await.unwrap();
        assert_eq!(read.is_some(), deleted, "{what}");
    }
}

#[tokio::test]
async fn an_upsert_meets_a_deleted_item_as_a_missing_one() {
    let t = table(&[Card::MODEL]).await;
    let c = &t.client;
    let f = Card::fields();
    items(c, 0).await;
    let refused = c
        .upsert(&card("deleted-0", "new"))
        .condition(f.text.eq("t"))
        .await;
    assert!(
        matches!(refused, Err(Error::ConditionFailed { old: None, .. })),
        "{refused:?}"
    );
    assert_eq!(c.get(Card::key("deleted-0")).await.unwrap(), None);
    let written = c
        .upsert(&card("deleted-0", "new"))
        .condition(f.text.exists().not())
        .await
        .unwrap();
    assert_eq!(written, card("deleted-0", "new"));
    assert_eq!(
        c.get(Card::key("deleted-0")).await.unwrap(),
        Some(card("deleted-0", "new"))
    );
}

/// Whether a transaction committed (`false`: its condition failed).
fn committed(what: &str, out: entity_client::Result<()>) -> bool {
    match out {
        Ok(()) => true,
        Err(Error::TransactionCanceled { .. }) => false,
        Err(e) => panic!("{what}: {e}"),
    }
}

#[tokio::test]
async fn a_transaction_checks_a_deleted_item_as_a_missing_one() {
    let t = table(&[Card::MODEL]).await;
    let c = &t.client;
    for (n, (what, condition, on_missing, on_live)) in conditions().into_iter().enumerate() {
        items(c, n).await;
        let check = |id: String, condition| async move {
            let out = c
                .transact_write()
                .condition_check(Card::key(id), condition)
                .put(&card(&format!("other-{n}"), "x"))
                .await;
            committed(what, out)
        };
        let missing = check(format!("missing-{n}"), condition.clone()).await;
        assert_eq!(missing, on_missing, "{what}: check on no item (the server)");
        let deleted = check(format!("deleted-{n}"), condition.clone()).await;
        assert_eq!(deleted, missing, "{what}: check on a deleted item");
        let live = check(format!("live-{n}"), condition.clone()).await;
        assert_eq!(live, on_live, "{what}: check on a live item");

        let put_if = |id: String, condition| async move {
            let out = c
                .transact_write()
                .put_if(&card(&id, "new"), condition)
                .await;
            committed(what, out)
        };
        let missing = put_if(format!("missing-{n}"), condition.clone()).await;
        assert_eq!(
            missing, on_missing,
            "{what}: put_if on no item (the server)"
        );
        let deleted = put_if(format!("deleted-{n}"), condition).await;
        assert_eq!(deleted, missing, "{what}: put_if on a deleted item");
    }
}
