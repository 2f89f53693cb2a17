//! A tenant client's batch write stamps its entities as the plain client's
//! batch does before it names their keys: a generated id that is part of
//! the key is filled first (two new entities are two keys, not a repeat),
//! and an unset `created_at` that a key is composed of is now.

use entity_client::{Entity, EpochMillis};
use entity_tests::harness::table;

/// A key of a generated id.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "tbs", tenant = tenant_id)]
#[pk(tenant_id)]
#[sk(id)]
struct Ticket {
    tenant_id: String,
    #[entity(generate = "uuid")]
    id: String,
    title: String,
}

fn ticket(title: &str) -> Ticket {
    Ticket {
        tenant_id: "acme".into(),
        id: String::new(),
        title: title.into(),
    }
}

#[tokio::test]
async fn generated_ids_are_filled_before_keys_are_named() {
    let t = table(&[Ticket::MODEL]).await;
    let acme = t.client.tenant("acme");
    let out = acme.batch_write().put_all(&[ticket("a"), ticket("b")]);
    let out = out.await.unwrap();
    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, 2);
    let streamed = acme.batch_write().put_iter(vec![ticket("c"), ticket("d")]);
    let streamed = streamed.await.unwrap();
    assert!(streamed.is_complete(), "{streamed:?}");
    assert_eq!(streamed.written, 2);
    let mut titles: Vec<String> = acme
        .query(Ticket::tenant_primary())
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|t| {
            assert!(!t.id.is_empty());
            t.title
        })
        .collect();
    titles.sort();
    assert_eq!(titles, ["a", "b", "c", "d"]);
}

/// An index keyed on `created_at`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "tbs", tenant = tenant_id)]
#[pk(tenant_id)]
#[sk(id)]
#[index(by_created(gsi = "gsi1", pk(tenant_id), sk(created_at)))]
struct Event {
    tenant_id: String,
    id: String,
    #[entity(created_at)]
    created_at: EpochMillis,
}

#[tokio::test]
async fn an_unset_created_at_a_key_is_composed_of_is_now() {
    let t = table(&[Event::MODEL]).await;
    let acme = t.client.tenant("acme");
    let event = |id: &str| Event {
        tenant_id: "acme".into(),
        id: id.into(),
        created_at: EpochMillis::default(),
    };
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let out = acme.batch_write().put_all(&[event("e1"), event("e2")]);
    assert_eq!(out.await.unwrap().written, 2);
    let streamed = acme.batch_write().put_iter(vec![event("e3")]);
    assert_eq!(streamed.await.unwrap().written, 1);
    // The index finds each under the time it was stamped with.
    let listed = acme.query(Event::tenant_by_created()).all().await.unwrap();
    assert_eq!(listed.len(), 3);
    for event in listed {
        assert!(event.created_at.0 >= before - 1000, "{event:?}");
    }
}
