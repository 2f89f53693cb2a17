//! Write sharding: shard suffixes (default and custom formats), stable and
//! spread; every write path addresses the item's shard; queries read every
//! shard and merge them exactly as one sorted partition would read, in both
//! orders, with limits, ranges and cursors.
//!
//! Servers split pages differently, so the tests assert on the items read,
//! never on how many pages it took.

mod common;

use entity_client::key::ShardSpec;
use entity_client::{Client, Entity, Explain, KeyPart};
use entity_tests::harness::{table, TestTable};
use futures::TryStreamExt;
use std::collections::BTreeMap;

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Open,
    Closed,
}

/// A GSI partition sharded ten ways, sorted by due date then id.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app")]
#[pk(job_id)]
#[sk()]
#[index(by_stage(gsi = "gsi1", pk(stage, shards = 10), sk(due, job_id)))]
struct Job {
    job_id: String,
    stage: Stage,
    due: u32,
    title: String,
}

/// Seed 003's layout: a custom-format table partition sharded ten ways
/// (`STATUS#ACTIVE#SHARD#7`), each item's shard picked by its sort key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Member")]
#[pk(format = "STATUS#{status}", shards = 10)]
#[sk(format = "USER#{user_id}")]
struct Member {
    status: String,
    user_id: String,
    name: String,
}

/// A default-format table partition over 100 shards: two-digit suffixes.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", casing = "upper")]
#[pk(kind, shards = 100)]
#[sk(event_id)]
struct Event {
    kind: String,
    event_id: u32,
}

fn job(i: u32, stage: Stage) -> Job {
    Job {
        job_id: format!("j-{i:04}"),
        stage,
        // Repeats, so the sort key's second composite orders ties.
        due: (i * 7919) % 400,
        title: format!("job {i}"),
    }
}

fn shard_of(key: &str, label: &str) -> u16 {
    let (_, digits) = key.rsplit_once(label).expect("a shard suffix");
    digits.parse().expect("shard digits")
}

#[test]
fn default_format_suffix_is_padded_and_cased() {
    let job = job(1, Stage::Open);
    let pk = job.by_stage_pk();
    assert!(pk.starts_with("$app#v1#job#stage_Open#shard_"), "{pk}");
    // Ten shards: one digit (the width of 9).
    let shard = shard_of(&pk, "#shard_");
    assert_eq!(pk.len(), "$app#v1#job#stage_Open#shard_".len() + 1);
    // The shard is the hash of the table key, `pk \0 sk`.
    let spec = Job::MODEL.indexes[0].pk.shards.expect("sharded");
    assert_eq!(spec.count, 10);
    assert_eq!(Job::MODEL.indexes[0].pk.shard_count(), Some(10));
    assert_eq!(shard, spec.shard_of_item(&job.pk(), &job.sk()));
    assert_eq!(Job::by_stage_pk_of(Stage::Open, shard), pk);
    assert_eq!(Job::parse_by_stage_pk(&pk).unwrap(), (Stage::Open,));
    assert!(Job::is_by_stage_pk(&pk));
    assert!(!Job::is_by_stage_pk("$app#v1#job#stage_Open"));
    assert!(!Job::is_by_stage_pk("$app#v1#job#stage_Open#shard_10"));
    assert!(!Job::is_by_stage_pk("$app#v1#job#stage_Open#shard_x"));

    // A hundred shards: two digits, and the word cased like the key.
    let event = Event {
        kind: "click".into(),
        event_id: 7,
    };
    let pk = event.pk();
    assert!(pk.starts_with("$APP#V1#EVENT#KIND_click#SHARD_"), "{pk}");
    assert_eq!(pk.len(), "$APP#V1#EVENT#KIND_click#SHARD_".len() + 2);
    let spec = Event::MODEL.primary.pk.shards.expect("sharded");
    assert_eq!((spec.count, spec.width, spec.label), (100, 2, "#SHARD_"));
    assert_eq!(shard_of(&pk, "#SHARD_"), spec.shard_of(&event.sk()));
    assert_eq!(Event::key("click", 7u32).pk, pk);
    assert_eq!(Event::parse_pk(&pk).unwrap(), ("click".to_owned(),));
    assert_eq!(
        Event::pk_of("click", 3),
        "$APP#V1#EVENT#KIND_click#SHARD_03"
    );
    assert_eq!(
        Event::pk_of("click", 103),
        "$APP#V1#EVENT#KIND_click#SHARD_03"
    );
}

#[test]
fn custom_format_suffix_is_seed_003s() {
    let member = Member {
        status: "ACTIVE".into(),
        user_id: "u-1".into(),
        name: "Ann".into(),
    };
    let pk = member.pk();
    let shard = shard_of(&pk, "#SHARD#");
    assert_eq!(pk, format!("STATUS#ACTIVE#SHARD#{shard}"));
    let spec = Member::MODEL.primary.pk.shards.expect("sharded");
    assert_eq!(shard, spec.shard_of("USER#u-1"));
    assert_eq!(Member::key("ACTIVE", "u-1").pk, pk);
    assert_eq!(Member::pk_of("ACTIVE", 7), "STATUS#ACTIVE#SHARD#7");
    assert_eq!(Member::parse_pk(&pk).unwrap(), ("ACTIVE".to_owned(),));
    assert!(!Member::is_pk("STATUS#ACTIVE#SHARD#07"));
    assert!(!Member::is_pk("STATUS#ACTIVE"));
}

#[test]
fn shards_are_stable_and_spread() {
    // Pinned: changing the hash would lose stored items.
    let spec = ShardSpec {
        count: 10,
        label: "#shard_",
        width: 1,
    };
    assert_eq!(
        entity_client::key::fnv1a64(b"foobar"),
        0x8594_4171_f739_67e8
    );
    assert_eq!(
        spec.shard_of("foobar"),
        (0x8594_4171_f739_67e8u64 % 10) as u16
    );

    let mut counts = BTreeMap::new();
    for i in 0..1000 {
        let job = job(i, Stage::Open);
        assert_eq!(
            job.by_stage_pk(),
            job.clone().by_stage_pk(),
            "deterministic"
        );
        *counts
            .entry(shard_of(&job.by_stage_pk(), "#shard_"))
            .or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 10, "every shard used: {counts:?}");
    assert!(
        counts.values().all(|&c| c <= 200),
        "none over twice the mean: {counts:?}"
    );
}

async fn jobs_table() -> TestTable {
    table(&[Job::MODEL, Member::MODEL]).await
}

/// Waits until the index shows `count` items for the stage.
async fn settle(client: &Client, stage: Stage, count: usize) {
    common::eventually(count, || async {
        client
            .query(Job::by_stage(stage))
            .all()
            .await
            .unwrap()
            .len()
    })
    .await;
}

#[tokio::test]
async fn every_write_path_finds_the_items_shard() {
    let t = jobs_table().await;
    let c = &t.client;
    let mut j = job(1, Stage::Open);
    c.put(&j).await.unwrap();
    let stored = common::stored(c, &Job::key("j-0001")).await.unwrap();
    assert_eq!(stored["gsi1pk"], common::s(&j.by_stage_pk()));
    assert_eq!(c.get(Job::key("j-0001")).await.unwrap(), Some(j.clone()));

    // A group setter recomposes the sharded key in the item's shard.
    c.patch(Job::key("j-0001"))
        .apply(Job::set_stage(Stage::Closed))
        .await
        .unwrap();
    j.stage = Stage::Closed;
    let stored = common::stored(c, &Job::key("j-0001")).await.unwrap();
    assert_eq!(stored["gsi1pk"], common::s(&j.by_stage_pk()));
    settle(c, Stage::Closed, 1).await;
    assert_eq!(
        c.query(Job::by_stage(Stage::Closed)).all().await.unwrap(),
        [j.clone()]
    );
    // The same through a transaction.
    c.transact_write()
        .update(
            Job::key("j-0001"),
            entity_client::expr::Update::new().apply(Job::set_stage(Stage::Open)),
            None,
        )
        .await
        .unwrap();
    j.stage = Stage::Open;
    let stored = common::stored(c, &Job::key("j-0001")).await.unwrap();
    assert_eq!(stored["gsi1pk"], common::s(&j.by_stage_pk()));
    c.delete(Job::key("j-0001")).await.unwrap();
    assert_eq!(c.get(Job::key("j-0001")).await.unwrap(), None);

    // A sharded table key: put, get, update, batch, transaction, delete.
    let member = |id: &str| Member {
        status: "ACTIVE".into(),
        user_id: id.into(),
        name: format!("name of {id}"),
    };
    c.put(&member("u-1")).await.unwrap();
    assert_eq!(
        c.get(Member::key("ACTIVE", "u-1")).await.unwrap(),
        Some(member("u-1"))
    );
    let f = Member::fields();
    c.patch(Member::key("ACTIVE", "u-1"))
        .set(f.name, "renamed")
        .await
        .unwrap();
    let got = c.get(Member::key("ACTIVE", "u-1")).await.unwrap().unwrap();
    assert_eq!(got.name, "renamed");
    let batch: Vec<Member> = (2..30).map(|i| member(&format!("u-{i}"))).collect();
    assert!(c
        .batch_write()
        .put_all(&batch)
        .await
        .unwrap()
        .unprocessed
        .is_empty());
    c.transact_write().put(&member("u-30")).await.unwrap();
    let keys = (2..=30).map(|i| Member::key("ACTIVE", format!("u-{i}")));
    let got = c.batch_get(keys).consistent_read(true).await.unwrap();
    assert_eq!(got.items.len(), 29);
    let shards: std::collections::BTreeSet<u16> = (1..=30)
        .map(|i| shard_of(&Member::key("ACTIVE", format!("u-{i}")).pk, "#SHARD#"))
        .collect();
    assert!(shards.len() > 5, "spread over shards: {shards:?}");
    let all = c.query(Member::primary("ACTIVE")).all().await.unwrap();
    let mut ids: Vec<String> = all.iter().map(|m| m.user_id.clone()).collect();
    assert_eq!(ids.len(), 30);
    let sorted = {
        ids.sort_by(|a, b| format!("USER#{a}").cmp(&format!("USER#{b}")));
        ids.clone()
    };
    let in_order: Vec<String> = all.into_iter().map(|m| m.user_id).collect();
    assert_eq!(in_order, sorted, "merged in sort key order");
    c.delete(Member::key("ACTIVE", "u-1")).await.unwrap();
    assert_eq!(c.get(Member::key("ACTIVE", "u-1")).await.unwrap(), None);
}

/// 520 open jobs over ten shards, and the reference order: `(due, id)`.
async fn loaded() -> (TestTable, Vec<Job>) {
    let t = jobs_table().await;
    let jobs: Vec<Job> = (0..520).map(|i| job(i, Stage::Open)).collect();
    let closed: Vec<Job> = (1000..1040).map(|i| job(i, Stage::Closed)).collect();
    let out = t
        .client
        .batch_write()
        .put_all(&jobs)
        .put_all(&closed)
        .await
        .unwrap();
    assert!(out.unprocessed.is_empty());
    settle(&t.client, Stage::Open, 520).await;
    let mut reference = jobs;
    reference.sort_by(|a, b| (a.due, &a.job_id).cmp(&(b.due, &b.job_id)));
    (t, reference)
}

#[tokio::test]
async fn queries_merge_every_shard_in_order() {
    let (t, reference) = loaded().await;
    let c = &t.client;
    let q = || Job::by_stage(Stage::Open);
    assert_eq!(c.query(q()).all().await.unwrap(), reference);
    let mut descending = reference.clone();
    descending.reverse();
    assert_eq!(c.query(q().descending()).all().await.unwrap(), descending);
    // Exact limits: the first n of the merged order.
    assert_eq!(c.query(q().limit(37)).all().await.unwrap(), reference[..37]);
    assert_eq!(
        c.query(q().descending().limit(37)).all().await.unwrap(),
        descending[..37]
    );
    let page = c.query(q().limit(37)).await.unwrap();
    assert_eq!(page.items, reference[..37]);
    assert!(page.cursor.is_some());
    assert_eq!(
        c.query(q()).one().await.unwrap().as_ref(),
        reference.first()
    );
    // Streams.
    let items: Vec<Job> = c
        .query(q())
        .page_size(23)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(items, reference);
    let pages: Vec<_> = c
        .query(q())
        .page_size(23)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert!(pages.iter().all(|p| p.items.len() <= 23));
    let flat: Vec<Job> = pages.into_iter().flat_map(|p| p.items).collect();
    assert_eq!(flat, reference);
    // A sort key range applies in every shard.
    let in_range: Vec<Job> = reference
        .iter()
        .filter(|j| (100..=250).contains(&j.due))
        .cloned()
        .collect();
    assert!(!in_range.is_empty());
    let got = c
        .query(q().due().between(100u32, 250u32))
        .all()
        .await
        .unwrap();
    assert_eq!(got, in_range);
    let got = c
        .query(q().due().between(100u32, 250u32).descending())
        .all()
        .await
        .unwrap();
    assert_eq!(got, in_range.iter().rev().cloned().collect::<Vec<_>>());
    let got = c.query(q().due().eq(7u32)).all().await.unwrap();
    let due_7: Vec<Job> = reference.iter().filter(|j| j.due == 7).cloned().collect();
    assert_eq!(got, due_7);
    // A filter, on every shard.
    let f = Job::fields();
    let got = c
        .query(q().limit(50))
        .filter(f.title.begins_with("job 1"))
        .all()
        .await
        .unwrap();
    let expected: Vec<Job> = reference
        .iter()
        .filter(|j| j.title.starts_with("job 1"))
        .take(50)
        .cloned()
        .collect();
    assert_eq!(got, expected);
}

#[tokio::test]
async fn one_cursor_pages_through_every_shard() {
    let (t, reference) = loaded().await;
    let c = &t.client;
    for descending in [false, true] {
        let q = || {
            let q = Job::by_stage(Stage::Open).limit(23);
            if descending {
                q.descending()
            } else {
                q
            }
        };
        let mut read = Vec::new();
        let mut cursor = String::new();
        loop {
            let page = c.query(q()).cursor(cursor.clone()).await.unwrap();
            assert!(page.items.len() <= 23);
            read.extend(page.items);
            match page.cursor {
                Some(next) => cursor = next,
                None => break,
            }
            assert!(read.len() <= reference.len(), "no item twice");
        }
        let mut expected = reference.clone();
        if descending {
            expected.reverse();
        }
        assert_eq!(read, expected, "every item once, in order");
        // A cursor belongs to its query.
        let first = c.query(q()).await.unwrap().cursor.unwrap();
        let other = c
            .query(Job::by_stage(Stage::Closed).limit(23))
            .cursor(first)
            .await;
        assert!(matches!(
            other,
            Err(entity_client::Error::InvalidCursor { .. })
        ));
    }
    // Resumed with other page sizes and a range.
    let q = || Job::by_stage(Stage::Open).due().gte(200u32);
    let expected: Vec<Job> = reference.iter().filter(|j| j.due >= 200).cloned().collect();
    let page = c.query(q().limit(41)).await.unwrap();
    let rest = c
        .query(q())
        .cursor(page.cursor.unwrap())
        .all()
        .await
        .unwrap();
    let mut read = page.items;
    read.extend(rest);
    assert_eq!(read, expected);
}

#[tokio::test]
async fn explain_shows_one_request_per_shard() {
    let t = jobs_table().await;
    let explained = t
        .client
        .query(Job::by_stage(Stage::Open).due().gt(3u32))
        .explain()
        .await
        .unwrap();
    assert_eq!(explained.requests.len(), 10);
    let mut partitions: Vec<String> = explained
        .requests
        .iter()
        .map(|r| {
            assert_eq!(r.operation, "Query");
            r.json()["ExpressionAttributeValues"][":pk"]["S"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    partitions.sort();
    let expected: Vec<String> = (0..10)
        .map(|n| Job::by_stage_pk_of(Stage::Open, n))
        .collect();
    assert_eq!(partitions, expected);
}

#[tokio::test]
async fn a_failed_page_resumes_after_the_last_item_delivered() {
    use entity_client::faults::{Fault, FaultProxy, Operation};
    use futures::StreamExt;
    let (t, reference) = loaded().await;
    let proxy = FaultProxy::start(&t.endpoint()).await.unwrap();
    let name = t.client.table().to_owned();
    let client = Client::new(
        entity_tests::harness::fast_sdk(proxy.endpoint(), &name),
        name,
    );
    // The first page of every shard (ten at once) and two more go through;
    // the next request, one shard's, fails on every attempt.
    let mut faults = vec![Fault::Pass; 12];
    let attempts = entity_tests::harness::FAST_SDK_ATTEMPTS as usize;
    faults.extend(vec![Fault::ServerErrorBeforeApplying; attempts]);
    proxy.faults().script(Operation::Query, faults);
    let q = || Job::by_stage(Stage::Open);
    let stream = client.query(q()).page_size(23).items();
    futures::pin_mut!(stream);
    let mut read = Vec::new();
    let cursor = loop {
        match stream.next().await {
            Some(Ok(job)) => read.push(job),
            Some(Err(entity_client::Error::PageFailed { cursor, .. })) => break cursor,
            other => panic!("expected a failed page, got {other:?}"),
        }
    };
    assert!(!read.is_empty() && read.len() < reference.len());
    let rest = client.query(q()).cursor(cursor).all().await.unwrap();
    read.extend(rest);
    assert_eq!(read, reference, "nothing twice, nothing skipped");
}
