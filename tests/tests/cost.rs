//! Cost budgets: `Client::measure` runs an access pattern and reports what
//! its requests cost, as the server reported it. The budgets asserted
//! here are DynamoDB's rules for small items (a read of up to 4 KB is half
//! a read unit eventually consistent and one strongly; a write of up to
//! 1 KB one write unit, twice that in a transaction), held on both servers.

use entity_client::{Entity, Error};
use entity_tests::harness::table;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "cost")]
#[pk(user)]
#[sk(id)]
struct Note {
    user: String,
    id: u32,
    pinned: bool,
}

fn note(user: &str, id: u32) -> Note {
    Note {
        user: user.into(),
        id,
        pinned: id.is_multiple_of(5),
    }
}

#[tokio::test]
async fn a_get_costs_one_request_and_half_a_read_unit_eventually_consistent() {
    let t = table(&[Note::MODEL]).await;
    t.client.put(&note("u1", 1)).await.unwrap();
    let (got, eventual) = t
        .client
        .measure(|c| async move { c.get(Note::key("u1", 1)).await })
        .await;
    assert_eq!(got.unwrap(), Some(note("u1", 1)));
    assert_eq!(eventual.requests, 1, "{eventual}");
    assert_eq!(eventual.requests_of("GetItem"), 1);
    assert!(
        eventual.read_units > 0.0 && eventual.read_units <= 0.5,
        "{eventual}"
    );
    assert_eq!(eventual.write_units, 0.0);

    let (_, strong) = t
        .client
        .measure(|c| async move { c.get(Note::key("u1", 1)).consistent_read(true).await })
        .await;
    assert!(
        strong.read_units <= 1.0 && strong.read_units >= eventual.read_units,
        "{strong} vs {eventual}"
    );
}

#[tokio::test]
async fn a_query_reads_what_it_returns_and_a_filter_reads_more() {
    let t = table(&[Note::MODEL]).await;
    let notes: Vec<Note> = (1..=10).map(|i| note("u1", i)).collect();
    t.client.batch_write().put_all(&notes).await.unwrap();

    let (all, cost) = t
        .client
        .measure(|c| async move { c.query(Note::primary("u1")).all().await })
        .await;
    assert_eq!(all.unwrap().len(), 10);
    assert_eq!(
        (cost.requests, cost.returned, cost.scanned),
        (1, 10, 10),
        "{cost}"
    );
    assert!(cost.read_units > 0.0 && cost.read_units <= 0.5, "{cost}");

    let f = Note::fields();
    let (pinned, filtered) = t
        .client
        .measure(|c| async move {
            c.query(Note::primary("u1"))
                .filter(f.pinned.eq(true))
                .all()
                .await
        })
        .await;
    assert_eq!(pinned.unwrap().len(), 2);
    assert_eq!((filtered.returned, filtered.scanned), (2, 10), "{filtered}");
    // A filter does not make the read cheaper: it reads every item.
    assert!(
        filtered.read_units >= cost.read_units,
        "{filtered} vs {cost}"
    );
}

#[tokio::test]
async fn an_exactly_once_create_is_a_transaction_and_costs_what_a_put_does_at_least() {
    let t = table(&[Note::MODEL]).await;
    let (put, plain) = t
        .client
        .measure(|c| async move { c.put(&note("u1", 1)).await })
        .await;
    put.unwrap();
    assert_eq!(plain.requests_of("PutItem"), 1, "{plain}");
    assert!(
        plain.write_units > 0.0 && plain.write_units <= 1.0,
        "{plain}"
    );

    let (created, tx) = t
        .client
        .measure(|c| async move { c.create(&note("u1", 2)).await })
        .await;
    created.unwrap();
    assert_eq!(tx.requests_of("TransactWriteItems"), 1, "{tx}");
    assert!(tx.write_units >= plain.write_units, "{tx} vs {plain}");

    // A refused create is measured too: one request, nothing written.
    let (again, refused) = t
        .client
        .measure(|c| async move { c.create(&note("u1", 2)).await })
        .await;
    assert!(
        matches!(again, Err(Error::ConditionFailed { .. })),
        "{again:?}"
    );
    assert_eq!(refused.requests, 1, "{refused}");
}

#[tokio::test]
async fn each_measure_counts_only_its_own_requests_in_any_scope() {
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "cost", tenant = tenant_id)]
    #[pk(tenant_id)]
    #[sk(id)]
    struct Doc {
        tenant_id: String,
        id: u32,
    }
    let t = table(&[Note::MODEL, Doc::MODEL]).await;
    let acme = t.client.tenant("acme");
    let (_, cost) = acme
        .measure(|c| async move {
            c.put(&Doc {
                tenant_id: "acme".into(),
                id: 1,
            })
            .await
            .unwrap();
            c.get(Doc::tenant_key(1)).await.unwrap()
        })
        .await;
    assert_eq!(cost.requests, 2, "{cost}");
    // Requests of the unmeasured client are not counted.
    acme.get(Doc::tenant_key(1)).await.unwrap();
    let (_, nothing) = t.client.measure(|_| async {}).await;
    assert_eq!(nothing, entity_client::stats::Cost::default());
}
