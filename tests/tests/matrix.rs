//! The composition matrix, table-driven: each row is an entity declaring
//! several features at once, and one generic walk runs every operation on
//! it, asserting what each read then says. The walk decides what to
//! expect from the entity's model (soft delete, history, unique values,
//! version, TTL), so a row is a declaration and a sample, nothing more.
//!
//! Together the rows put every pair of the write-side features (unique,
//! version, history, soft delete, fixed TTL, sliding TTL, sparse index,
//! timestamps, generated ids) and of the index features (sharding,
//! collection, multi-attribute index, entity versions) on one entity; the
//! pairs that cannot be declared together fail to compile with the reason
//! (tests/ui). The walk is generic over the client's scope: the tenant
//! row runs the same walk through a tenant's client (its scans and
//! migrations through `cross_tenant()`, as a tenant's client does not
//! scan). The guide's matrix lists which row covers which pair.

mod common;

use common::stored;
use entity_client::expr::Update;
use entity_client::scope::{Reaches, Reads, Scans};
use entity_client::{
    Client, Collection, Entity, EpochMillis, EpochSeconds, Error, Explain, PrimaryKey, UniqueKey,
};
use entity_tests::clock::TestClock;
use entity_tests::harness::table;
use std::fmt::Debug;

const T0: u64 = 1_900_000_000;

/// What the walk needs of a row's entity.
trait Row: Entity + Clone + PartialEq + Debug + Send + Sync + 'static {
    /// A new item; `n` tells samples apart (their keys and unique values).
    fn sample(n: u32) -> Self;
    /// The body, a plain field every row has.
    fn body(&self) -> &str;
    /// The same item with another body.
    fn with_body(&self, body: &str) -> Self;
    /// Another item (key `n`) with this one's values.
    fn rekeyed(&self, n: u32) -> Self;
    /// The update that sets the body.
    fn set_body(body: &str) -> Update<Self>;
    /// The row's first unique lookup for the value of sample `n`, if the
    /// row has unique values.
    fn unique(n: u32) -> Option<UniqueKey<Self>>;
    /// The items of `item`'s table partition, strongly consistent.
    async fn partition<S: Reads<Self>>(client: &Client<S>, item: &Self) -> Vec<Self>;
    /// The whole items read through the row's projected index (its views
    /// of `item`'s index partition, hydrated); `None` for a row without
    /// one.
    async fn indexed<S: Reaches<Self>>(client: &Client<S>, item: &Self) -> Option<Vec<Self>> {
        let _ = (client, item);
        None
    }
}

/// Whether `item` is among the items read through its row's projected
/// index (`None` for a row without one).
async fn in_index<E: Row, S: Reaches<E>>(client: &Client<S>, item: &E) -> Option<bool> {
    let found = E::indexed(client, item).await?;
    Some(found.iter().any(|e| key(e) == key(item)))
}

fn key<E: Row>(item: &E) -> PrimaryKey<E> {
    item.primary_key()
}

async fn body_of<E: Row, S: Reaches<E>>(client: &Client<S>, item: &E) -> Option<String> {
    let got = client
        .get(key(item))
        .consistent_read(true)
        .await
        .expect("get");
    got.map(|e| e.body().to_owned())
}

/// The stored entity (with the version and timestamps the client wrote).
async fn current<E: Row, S: Reaches<E>>(client: &Client<S>, item: &E) -> E {
    client
        .get(key(item))
        .consistent_read(true)
        .await
        .expect("get")
        .expect("stored")
}

/// Every operation on one item of `E` through the plain client, and what
/// each read says after it.
async fn walk<E: Row>()
where
    entity_client::scope::Unscoped: Scans<E>,
{
    let t = table(&[E::MODEL]).await;
    let clock = TestClock::at(T0);
    let client = t.client.clone().with_clock(clock.clone());
    walk_in(&t, &clock, client.clone(), client).await;
}

/// Every operation on one item of `E` through `client` (of any scope that
/// reaches `E`), scanning and migrating through `scanner`.
async fn walk_in<E: Row, S: Reaches<E>, T: Scans<E>>(
    t: &entity_tests::harness::TestTable,
    clock: &TestClock,
    client: Client<S>,
    scanner: Client<T>,
) {
    let model = E::MODEL;
    let soft = model.lifecycle.soft_delete.is_some();
    let name = model.name;

    // create, and a create over it
    let a = client.create(&E::sample(1)).await.expect("create");
    assert_eq!(body_of(&client, &a).await.as_deref(), Some(a.body()));
    let again = client.create(&a).await;
    assert!(
        matches!(again, Err(Error::ConditionFailed { .. })),
        "{name}: create over an item: {again:?}"
    );

    // put, upsert (from the stored entity: its version is the one to expect)
    let stored_a = current(&client, &a).await;
    let put = client.put(&stored_a.with_body("put")).await.expect("put");
    assert_eq!(body_of(&client, &a).await.as_deref(), Some("put"));
    let upserted = client
        .upsert(&put.with_body("upsert"))
        .await
        .expect("upsert");
    assert_eq!(upserted.body(), "upsert");
    assert_eq!(
        current(&client, &a).await,
        upserted,
        "{name}: upsert returns the stored entity"
    );

    // patch, update
    let patched: E = client
        .patch(key(&a))
        .changes(E::set_body("patch"))
        .return_new()
        .await
        .expect("patch");
    assert_eq!(patched.body(), "patch");
    client
        .update(key(&a))
        .changes(E::set_body("update"))
        .await
        .expect("update");
    assert_eq!(body_of(&client, &a).await.as_deref(), Some("update"));
    let missing = client
        .patch(key(&E::sample(99)))
        .changes(E::set_body("x"))
        .await;
    assert!(
        matches!(missing, Err(Error::NotFound { .. })),
        "{name}: {missing:?}"
    );

    // reads: query, scan, batch get, transact get
    let b = client.create(&E::sample(2)).await.expect("create b");
    let listed = E::partition(&client, &a).await;
    assert!(
        listed.iter().any(|e| e.body() == "update"),
        "{name}: {listed:?}"
    );
    // a projected index: its views hydrate to the stored entities
    if let Some(found) = E::indexed(&client, &a).await {
        let stored_a = current(&client, &a).await;
        assert!(found.contains(&stored_a), "{name}: {found:?}");
    }
    let scanned = scanner
        .scan::<E>()
        .consistent_read(true)
        .all()
        .await
        .expect("scan");
    assert_eq!(scanned.len(), 2, "{name}: {scanned:?}");
    let batch = client
        .batch_get([key(&a), key(&b)])
        .consistent_read(true)
        .await
        .expect("batch get");
    assert_eq!(batch.items.len(), 2, "{name}");
    let tx = client
        .transact_get()
        .get(key(&a))
        .get(key(&b))
        .await
        .expect("transact get");
    assert_eq!(
        tx.entity::<E>(0)
            .expect("decode")
            .map(|e| e.body().to_owned())
            .as_deref(),
        Some("update")
    );

    // a transaction's update: refused before sending for history (its
    // snapshot needs the stored item), applied otherwise
    let tx = client
        .transact_write()
        .update(key(&a), E::set_body("tx"), None)
        .await;
    match model.lifecycle.history {
        Some(_) => assert!(matches!(tx, Err(Error::Validation(_))), "{name}: {tx:?}"),
        None => {
            tx.expect("transact update");
            assert_eq!(body_of(&client, &a).await.as_deref(), Some("tx"));
        }
    }

    // explain sends nothing and names the request
    let explained = client
        .put(&current(&client, &a).await)
        .explain()
        .await
        .expect("explain");
    assert!(!explained.requests.is_empty(), "{name}");

    // history: a snapshot per write, newest first
    if model.lifecycle.history.is_some() {
        let versions = client.history(key(&a)).all().await.expect("history");
        assert!(versions.len() >= 4, "{name}: {versions:?}");
        assert_eq!(versions[0].body(), current(&client, &a).await.body());
    }

    // unique values: held, freed by a delete, taken by another
    let unique_a = E::unique(1);
    if let Some(lookup) = E::unique(1) {
        let holder = client.get_unique(lookup).await.expect("get_unique");
        assert_eq!(holder.map(|e| key(&e)), Some(key(&a)), "{name}");
    }

    // delete: gone for reads; a soft-deleted item listed, restorable
    client.delete(key(&a)).await.expect("delete");
    assert_eq!(body_of(&client, &a).await, None, "{name}: deleted");
    let hidden = scanner
        .scan::<E>()
        .consistent_read(true)
        .all()
        .await
        .expect("scan");
    assert_eq!(hidden.len(), 1, "{name}: {hidden:?}");
    let listed = E::partition(&client, &a).await;
    assert!(
        listed.iter().all(|e| key(e) != key(&a)),
        "{name}: {listed:?}"
    );
    assert_ne!(
        in_index(&client, &a).await,
        Some(true),
        "{name}: deleted, not through the index"
    );
    let tx = client
        .transact_get()
        .get(key(&a))
        .await
        .expect("transact get");
    assert_eq!(
        tx.entity::<E>(0).expect("decode"),
        None,
        "{name}: transact get"
    );
    let batch = client
        .batch_get([key(&a)])
        .consistent_read(true)
        .await
        .expect("batch get");
    assert!(batch.items.is_empty(), "{name}: batch get");
    if let Some(lookup) = unique_a {
        let holder = client.get_unique(lookup).await.expect("get_unique");
        assert_eq!(holder, None, "{name}: a deleted item holds no value");
    }
    let patch_deleted = client.patch(key(&a)).changes(E::set_body("x")).await;
    assert!(
        matches!(patch_deleted, Err(Error::NotFound { .. })),
        "{name}: {patch_deleted:?}"
    );
    let removed = client.remove(key(&a)).await;
    assert!(
        matches!(removed, Err(Error::NotFound { .. })),
        "{name}: {removed:?}"
    );
    if soft {
        let deleted = client
            .get(key(&a))
            .include_deleted(true)
            .consistent_read(true)
            .await
            .expect("get deleted");
        assert!(deleted.is_some(), "{name}: kept, marked");
        let restored = client.restore(key(&a)).await.expect("restore");
        assert_eq!(body_of(&client, &a).await.as_deref(), Some(restored.body()));
        assert_ne!(
            in_index(&client, &a).await,
            Some(false),
            "{name}: restored, in the index again"
        );
        if let Some(lookup) = E::unique(1) {
            let holder = client.get_unique(lookup).await.expect("get_unique");
            assert_eq!(
                holder.map(|e| key(&e)),
                Some(key(&a)),
                "{name}: restored, held again"
            );
        }
        client.delete(key(&a)).await.expect("delete again");
    }
    client.purge(key(&a)).await.expect("purge");
    assert_eq!(stored(&t.client, &key(&a)).await, None, "{name}: purged");

    // a migration of current items rewrites nothing and revives nothing
    client.delete(key(&b)).await.expect("delete b");
    let report = scanner.migrate::<E>().await.expect("migrate");
    assert_eq!(report.counts.rewritten, 0, "{name}: {:?}", report.counts);
    assert_eq!(body_of(&client, &b).await, None, "{name}: still deleted");

    // rekey: the item moves to another key with its values and its unique
    // values; the old key reads as gone
    let d = client.create(&E::sample(4)).await.expect("create d");
    let moved = client.rekey(key(&d), &d.rekeyed(40)).await.expect("rekey");
    assert_eq!(body_of(&client, &d).await, None, "{name}: moved away");
    assert_eq!(
        body_of(&client, &moved).await.as_deref(),
        Some(d.body()),
        "{name}: moved"
    );
    if let Some(lookup) = E::unique(4) {
        let holder = client.get_unique(lookup).await.expect("get_unique");
        assert_eq!(
            holder.map(|e| key(&e)),
            Some(key(&moved)),
            "{name}: the value moved"
        );
    }

    // an expired item reads as gone; its unique value is free for another
    if model.lifecycle.ttl.is_some() {
        let c = client.create(&E::sample(3)).await.expect("create c");
        clock.set(T0 + 400 * 86_400);
        assert_eq!(body_of(&client, &c).await, None, "{name}: expired");
        if let Some(lookup) = E::unique(3) {
            assert_eq!(client.get_unique(lookup).await.expect("get_unique"), None);
            let other = client.create(&c.rekeyed(30)).await;
            assert!(
                other.is_ok(),
                "{name}: the expired holder's value: {other:?}"
            );
        }
    }
}

/// A batch writes and deletes rows without unique values or a version.
async fn walk_batch<E>()
where
    E: Row
        + entity_client::NotTenant
        + entity_client::WithoutUnique
        + entity_client::WithoutVersion,
{
    let t = table(&[E::MODEL]).await;
    let client = t.client.clone();
    let (a, b) = (E::sample(1), E::sample(2));
    client
        .batch_write()
        .put(&a)
        .put(&b)
        .await
        .expect("batch put");
    assert_eq!(body_of(&client, &a).await.as_deref(), Some(a.body()));
    client
        .batch_write()
        .purge(key(&a))
        .await
        .expect("batch purge");
    assert_eq!(stored(&t.client, &key(&a)).await, None);
}

macro_rules! rows {
    ($($test:ident: $row:ty),* $(,)?) => {$(
        #[tokio::test]
        async fn $test() {
            walk::<$row>().await;
        }
    )*};
}

/// The methods every row spells alike: a `body` field, an `id` field.
macro_rules! row_basics {
    () => {
        fn body(&self) -> &str {
            &self.body
        }
        fn with_body(&self, body: &str) -> Self {
            Self {
                body: body.into(),
                ..self.clone()
            }
        }
        fn rekeyed(&self, n: u32) -> Self {
            Self {
                id: id(n),
                ..self.clone()
            }
        }
        fn set_body(body: &str) -> Update<Self> {
            Update::new().set(Self::fields().body, body)
        }
    };
}

/// `partition` of a row whose table partition is its `id`.
macro_rules! partition_by_id {
    () => {
        async fn partition<S: Reads<Self>>(client: &Client<S>, item: &Self) -> Vec<Self> {
            client
                .query(Self::primary(&item.id))
                .consistent_read(true)
                .all()
                .await
                .expect("query")
        }
    };
}

// ---- The rows.

/// Unique × version × history × soft delete (with its expiry) × fixed TTL
/// × timestamps × a sparse index × a compressed field (its samples' bodies
/// over the threshold).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "mx",
    soft_delete(expire_after = "30d"),
    history(keep = 5),
    unique(code)
)]
#[pk(id)]
#[sk()]
#[index(by_team(gsi = "gsi1", pk(team), sk(id), projection = include(body)))]
struct Ledger {
    id: String,
    code: String,
    team: Option<String>,
    #[entity(compress)]
    body: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
    #[entity(created_at)]
    created_at: Option<EpochMillis>,
    #[entity(updated_at)]
    updated_at: Option<EpochMillis>,
}

/// Unique (kept by soft delete) × soft delete × sliding TTL × a generated
/// id × a sharded index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", soft_delete(keep_unique), unique(handle))]
#[pk(id)]
#[sk()]
#[index(by_region(gsi = "gsi1", pk(region, shards = 4), sk(id), projection = include(handle)))]
struct Account {
    id: String,
    handle: String,
    region: String,
    body: String,
    #[entity(generate = "uuid")]
    token: String,
    #[entity(ttl(after = "30d"))]
    expires_at: Option<EpochSeconds>,
}

/// History × version × a collection index × timestamps × sliding TTL.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", history)]
#[pk(id)]
#[sk()]
#[index(board(gsi = "gsi1", collection = "board", pk(board), sk(id)))]
struct Card {
    id: String,
    board: String,
    body: String,
    #[entity(version)]
    version: u64,
    #[entity(created_at)]
    created_at: Option<EpochMillis>,
    #[entity(ttl(after = "90d"))]
    expires_at: Option<EpochSeconds>,
}

/// Another member of the `board` collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx")]
#[pk(id)]
#[sk()]
#[index(board(gsi = "gsi1", collection = "board", pk(board), sk(id)))]
struct Pin {
    id: String,
    board: String,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "board", pk(board: String))]
enum Board {
    Cards(Card),
    Pins(Pin),
}

/// Unique × version × a multi-attribute index (sparse) × fixed TTL ×
/// soft delete × a generated id.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", soft_delete, unique(sku))]
#[pk(id)]
#[sk()]
#[index(by_shelf(gsi = "gsi2", multi_attribute, pk(shelf), sk(rank)))]
struct Stock {
    id: String,
    sku: String,
    shelf: String,
    rank: Option<u32>,
    body: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl)]
    expires_at: Option<EpochSeconds>,
    #[entity(generate = "ulid")]
    lot: String,
}

/// Version 1 of `Memo`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", name = "Memo", version = 1)]
#[pk(id)]
#[sk()]
struct MemoV1 {
    id: String,
    body: String,
}

/// Entity versions (upgraded from V1) × unique × soft delete × a sparse
/// index × history × timestamps.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx", name = "Memo", version = 2, upgrade_from = MemoV1, soft_delete, history, unique(slug))]
#[pk(id)]
#[sk()]
#[index(by_topic(gsi = "gsi1", pk(topic), sk(id)))]
struct Memo {
    id: String,
    slug: String,
    topic: Option<String>,
    body: String,
    #[entity(version)]
    revision: u64,
    #[entity(updated_at)]
    updated_at: Option<EpochMillis>,
}

impl From<MemoV1> for Memo {
    fn from(v1: MemoV1) -> Self {
        Memo {
            slug: v1.id.clone(),
            id: v1.id,
            topic: None,
            body: v1.body,
            revision: 0,
            updated_at: None,
        }
    }
}

/// A plain row with a sharded table partition and a sparse keys-only
/// index: the batch walk's.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "mx")]
#[pk(format = "LOG#{day}", shards = 4)]
#[sk(id)]
#[index(by_level(gsi = "gsi1", pk(level), sk(id), projection = keys_only))]
struct Log {
    day: String,
    id: String,
    level: Option<String>,
    body: String,
    #[entity(created_at)]
    created_at: Option<EpochMillis>,
}

/// Tenant × unique (within the tenant) × version × history × soft delete
/// × sliding TTL × timestamps × a sparse index × a compressed field:
/// walked through a tenant's client.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "mx",
    tenant = tenant_id,
    soft_delete,
    history(keep = 5),
    unique(code)
)]
#[pk(tenant_id, id)]
#[sk()]
#[index(by_team(gsi = "gsi1", pk(tenant_id, team), sk(id), projection = include(code)))]
struct Invoice {
    tenant_id: String,
    id: String,
    code: String,
    team: Option<String>,
    #[entity(compress)]
    body: String,
    #[entity(version)]
    version: u64,
    #[entity(ttl(after = "30d"))]
    expires_at: Option<EpochSeconds>,
    #[entity(created_at)]
    created_at: Option<EpochMillis>,
}

fn id(n: u32) -> String {
    format!("i{n:03}")
}

/// A body over `#[entity(compress)]`'s 1 KiB threshold that compresses:
/// the compressed rows store it as a compressed binary.
fn long_body(n: u32) -> String {
    format!("body {n}: ").repeat(200)
}

impl Row for Ledger {
    fn sample(n: u32) -> Self {
        Ledger {
            id: id(n),
            code: format!("code-{n}"),
            team: (!n.is_multiple_of(2)).then(|| "core".to_owned()),
            body: long_body(n),
            version: 0,
            expires_at: Some(EpochSeconds((T0 + 86_400) as i64)),
            created_at: None,
            updated_at: None,
        }
    }
    row_basics!();
    fn unique(n: u32) -> Option<UniqueKey<Self>> {
        Some(Self::by_code(format!("code-{n}")))
    }
    partition_by_id!();
    async fn indexed<S: Reaches<Self>>(client: &Client<S>, item: &Self) -> Option<Vec<Self>> {
        let team = item.team.as_deref()?;
        let views: Vec<LedgerByTeamView> = client
            .query(Self::by_team(team))
            .all()
            .await
            .expect("views");
        let whole = client.hydrate(&views).await.expect("hydrate");
        // The (compressed) body, read from the index as from the table.
        let viewed: Vec<&str> = views.iter().map(|v| v.body.as_str()).collect();
        let stored: Vec<&str> = whole.iter().map(|e| e.body.as_str()).collect();
        assert_eq!(viewed, stored);
        Some(whole)
    }
}

impl Row for Account {
    fn sample(n: u32) -> Self {
        Account {
            id: id(n),
            handle: format!("handle-{n}"),
            region: "eu".into(),
            body: format!("body {n}"),
            token: String::new(),
            expires_at: None,
        }
    }
    row_basics!();
    fn unique(n: u32) -> Option<UniqueKey<Self>> {
        Some(Self::by_handle(format!("handle-{n}")))
    }
    partition_by_id!();
    async fn indexed<S: Reaches<Self>>(client: &Client<S>, item: &Self) -> Option<Vec<Self>> {
        // Every shard, merged.
        let views: Vec<AccountByRegionView> = client
            .query(Self::by_region(&item.region))
            .all()
            .await
            .expect("views");
        Some(client.hydrate(&views).await.expect("hydrate"))
    }
}

impl Row for Card {
    fn sample(n: u32) -> Self {
        Card {
            id: id(n),
            board: "b1".into(),
            body: format!("body {n}"),
            version: 0,
            created_at: None,
            expires_at: None,
        }
    }
    row_basics!();
    fn unique(_: u32) -> Option<UniqueKey<Self>> {
        None
    }
    partition_by_id!();
}

impl Row for Stock {
    fn sample(n: u32) -> Self {
        Stock {
            id: id(n),
            sku: format!("sku-{n}"),
            shelf: "s1".into(),
            rank: n.is_multiple_of(2).then_some(n),
            body: format!("body {n}"),
            version: 0,
            expires_at: Some(EpochSeconds((T0 + 3_600) as i64)),
            lot: String::new(),
        }
    }
    row_basics!();
    fn unique(n: u32) -> Option<UniqueKey<Self>> {
        Some(Self::by_sku(format!("sku-{n}")))
    }
    partition_by_id!();
}

impl Row for Memo {
    fn sample(n: u32) -> Self {
        Memo {
            id: id(n),
            slug: format!("slug-{n}"),
            topic: (!n.is_multiple_of(2)).then(|| "news".to_owned()),
            body: format!("body {n}"),
            revision: 0,
            updated_at: None,
        }
    }
    row_basics!();
    fn unique(n: u32) -> Option<UniqueKey<Self>> {
        Some(Self::by_slug(format!("slug-{n}")))
    }
    partition_by_id!();
}

impl Row for Log {
    fn sample(n: u32) -> Self {
        Log {
            day: "2026-11-26".into(),
            id: id(n),
            level: (!n.is_multiple_of(2)).then(|| "warn".to_owned()),
            body: format!("body {n}"),
            created_at: None,
        }
    }
    row_basics!();
    fn unique(_: u32) -> Option<UniqueKey<Self>> {
        None
    }
    async fn partition<S: Reads<Self>>(client: &Client<S>, item: &Self) -> Vec<Self> {
        client
            .query(Self::primary(&item.day))
            .consistent_read(true)
            .all()
            .await
            .expect("query")
    }
    async fn indexed<S: Reaches<Self>>(client: &Client<S>, item: &Self) -> Option<Vec<Self>> {
        let level = item.level.as_deref()?;
        let views: Vec<LogByLevelView> = client
            .query(Self::by_level(level))
            .all()
            .await
            .expect("views");
        // The keys' composites: the table's (its shard left out) and the index's.
        assert!(views
            .iter()
            .all(|v| v.day == item.day && v.level.as_deref() == Some(level)));
        Some(client.hydrate(&views).await.expect("hydrate"))
    }
}

impl Row for Invoice {
    fn sample(n: u32) -> Self {
        Invoice {
            tenant_id: "acme".into(),
            id: id(n),
            code: format!("code-{n}"),
            team: (!n.is_multiple_of(2)).then(|| "core".to_owned()),
            body: long_body(n),
            version: 0,
            expires_at: None,
            created_at: None,
        }
    }
    row_basics!();
    fn unique(n: u32) -> Option<UniqueKey<Self>> {
        Some(Self::by_code(format!("code-{n}")))
    }
    async fn partition<S: Reads<Self>>(client: &Client<S>, item: &Self) -> Vec<Self> {
        client
            .query(Self::primary(&item.tenant_id, &item.id))
            .consistent_read(true)
            .all()
            .await
            .expect("query")
    }
    async fn indexed<S: Reaches<Self>>(client: &Client<S>, item: &Self) -> Option<Vec<Self>> {
        let team = item.team.as_deref()?;
        let query = Self::by_team(&item.tenant_id, team);
        let views: Vec<InvoiceByTeamView> = client.query(query).all().await.expect("views");
        Some(client.hydrate(&views).await.expect("hydrate"))
    }
}

rows!(
    ledger_unique_version_history_soft_delete_ttl_timestamps_sparse: Ledger,
    account_unique_kept_soft_delete_sliding_ttl_generated_sharded: Account,
    card_history_version_collection_timestamps_sliding_ttl: Card,
    stock_unique_version_multi_attribute_ttl_soft_delete_generated: Stock,
    memo_upgraded_unique_soft_delete_sparse_history_timestamps: Memo,
    log_sharded_table_sparse_timestamps: Log,
);

/// The plain walk through `cross_tenant()`: the scope that reaches every
/// entity runs every operation as the plain client does.
#[tokio::test]
async fn ledger_through_the_cross_tenant_scope() {
    let t = table(&[Ledger::MODEL]).await;
    let clock = TestClock::at(T0);
    let client = t.client.clone().with_clock(clock.clone());
    walk_in::<Ledger, _, _>(&t, &clock, client.cross_tenant(), client.cross_tenant()).await;
}

/// The walk through a tenant's client: every operation of the plain
/// client's walk, in the tenant's scope; another tenant sees none of it.
#[tokio::test]
async fn invoice_tenant_unique_version_history_soft_delete_sliding_ttl_sparse() {
    let t = table(&[Invoice::MODEL]).await;
    let clock = TestClock::at(T0);
    let base = t.client.clone().with_clock(clock.clone());
    let acme = base.tenant("acme");
    walk_in::<Invoice, _, _>(&t, &clock, acme.clone(), base.cross_tenant()).await;

    let globex = base.tenant("globex");
    let theirs = Invoice::sample(7);
    let refused = globex.create(&theirs).await;
    assert!(
        matches!(refused, Err(Error::TenantMismatch { .. })),
        "another tenant's entity: {refused:?}"
    );
    let mine = acme.create(&theirs).await.expect("create in acme");
    assert_eq!(
        globex
            .get(Invoice::tenant_key(&mine.id))
            .await
            .expect("get"),
        None
    );
    let same_code = Invoice {
        tenant_id: "globex".into(),
        ..mine.clone()
    };
    globex
        .create(&same_code)
        .await
        .expect("a unique value is unique within its tenant");
}

#[tokio::test]
async fn log_batch_put_and_purge() {
    walk_batch::<Log>().await;
}

#[tokio::test]
async fn a_collection_of_a_history_entity_reads_live_items_only() {
    let t = table(&[Card::MODEL, Pin::MODEL]).await;
    let client = t.client.clone();
    let card = client.create(&Card::sample(1)).await.expect("card");
    client
        .patch(key(&card))
        .changes(Card::set_body("v2"))
        .await
        .expect("patch");
    client
        .put(&Pin {
            id: "p1".into(),
            board: "b1".into(),
        })
        .await
        .expect("pin");
    // GSIs are eventually consistent: read until both members show.
    let mut members = Vec::new();
    for _ in 0..100 {
        members = client
            .query(Board::query("b1"))
            .all()
            .await
            .expect("collection");
        if members.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let cards: Vec<&Card> = members
        .iter()
        .filter_map(|m| match m {
            Board::Cards(c) => Some(c),
            Board::Pins(_) => None,
        })
        .collect();
    assert_eq!(
        cards.len(),
        1,
        "no history snapshot is a member: {members:?}"
    );
    assert_eq!(cards[0].body, "v2");
}

#[tokio::test]
async fn an_item_of_version_1_reads_and_writes_through_every_feature_of_version_2() {
    let t = table(&[MemoV1::MODEL, Memo::MODEL]).await;
    let client = t.client.clone();
    let old = MemoV1 {
        id: id(7),
        body: "old".into(),
    };
    client.put(&old).await.expect("v1");
    let read = client
        .get(Memo::key(id(7)))
        .await
        .expect("get")
        .expect("upgraded");
    assert_eq!((read.slug.as_str(), read.body.as_str()), ("i007", "old"));
    let written = client.put(&read.with_body("new")).await.expect("put as v2");
    let holder = client
        .get_unique(Memo::by_slug("i007"))
        .await
        .expect("get_unique");
    assert_eq!(holder, Some(written));
}
