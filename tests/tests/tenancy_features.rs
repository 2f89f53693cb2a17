//! What plain entities have, for tenant entities through the tenant
//! client: unique values scoped to the tenant (sentinels that carry it,
//! checked like every tenant key), queries of collections of tenant
//! entities, history, purge, and batch writes (sent as guarded
//! transactions).

mod common;

use common::{s, stored, stored_at};
use entity_client::tenant::TenantHole;
use entity_client::{Collection, Entity, Error, ValidationError};
use entity_tests::harness::table;
use entity_tests::tenancy::{product, Journal, Memo, Note, Product};

/// Unique within its tenant, soft deleted (a delete frees the value, a
/// restore takes it again).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "crm", name = "Customer", tenant = tenant_id, unique(email), soft_delete)]
#[pk(format = "CUSTOMER#{tenant_id}")]
#[sk(format = "{id}")]
struct Customer {
    tenant_id: String,
    id: String,
    email: String,
}

fn customer(tenant: &str, id: &str, email: &str) -> Customer {
    Customer {
        tenant_id: tenant.into(),
        id: id.into(),
        email: email.into(),
    }
}

/// A collection of two tenant entities in one partition of a GSI.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "crm", name = "Member", tenant = tenant_id)]
#[pk(format = "MEMBER#{tenant_id}#{id}")]
#[sk()]
#[index(team(gsi = "gsi1", collection = "team", pk(tenant_id, team), sk(id)))]
struct Member {
    tenant_id: String,
    id: String,
    team: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "crm", name = "Role", tenant = tenant_id)]
#[pk(format = "ROLE#{tenant_id}#{name}")]
#[sk()]
#[index(team(gsi = "gsi1", collection = "team", pk(tenant_id, team), sk(name)))]
struct Role {
    tenant_id: String,
    name: String,
    team: String,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "team", pk(tenant_id: String, team: String))]
enum Team {
    Members(Member),
    Roles(Role),
}

fn mismatch<T: std::fmt::Debug>(result: &Result<T, Error>, found: Option<&str>) -> bool {
    matches!(result, Err(Error::TenantMismatch { expected, found: f }) if expected == "acme" && f.as_deref() == found)
}

fn violation<T: std::fmt::Debug>(result: &Result<T, Error>) -> bool {
    matches!(
        result,
        Err(Error::UniqueViolation {
            constraint: "email",
            ..
        })
    )
}

// ---- unique values -------------------------------------------------------

#[tokio::test]
async fn a_unique_value_is_unique_within_each_tenant() {
    let t = table(&[Customer::MODEL]).await;
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    acme.create(&customer("acme", "c1", "ada@example.com"))
        .await
        .unwrap();
    // Another tenant may hold the same value.
    globex
        .create(&customer("globex", "c9", "ada@example.com"))
        .await
        .unwrap();
    // One tenant may not hold it twice, through any write.
    let twice = acme
        .create(&customer("acme", "c2", "ada@example.com"))
        .await;
    assert!(violation(&twice), "{twice:?}");
    let put = acme.put(&customer("acme", "c2", "ada@example.com")).await;
    assert!(violation(&put), "{put:?}");
    let upsert = acme
        .upsert(&customer("acme", "c2", "ada@example.com"))
        .await;
    assert!(violation(&upsert), "{upsert:?}");
    let tx = acme
        .transact_write()
        .create(&customer("acme", "c2", "ada@example.com"))
        .await;
    assert!(violation(&tx), "{tx:?}");
    assert_eq!(acme.get(Customer::tenant_key("c2")).await.unwrap(), None);

    // Each tenant's lookup finds its own owner.
    let by_email = || Customer::by_email("ada@example.com");
    let found = acme.get_unique(by_email()).await.unwrap();
    assert_eq!(found.map(|c| c.id), Some("c1".to_owned()));
    let found = globex.get_unique(by_email()).await.unwrap();
    assert_eq!(found.map(|c| c.id), Some("c9".to_owned()));
    assert_eq!(
        t.client
            .tenant("initech")
            .get_unique(by_email())
            .await
            .unwrap(),
        None
    );

    // The sentinel carries the tenant.
    let sentinel = stored_at(
        &t.client,
        "__unique#crm#Customer#email#acme#ada@example.com",
        "__unique",
    )
    .await;
    assert_eq!(sentinel["__owner_pk"], s("CUSTOMER#acme"));
    assert_eq!(sentinel["__owner_sk"], s("c1"));
}

#[tokio::test]
async fn writes_move_a_tenants_unique_values() {
    let t = table(&[Customer::MODEL]).await;
    let acme = t.client.tenant("acme");
    let by_email = |email: &str| Customer::by_email(email.to_owned());
    // A put and an upsert take values; changing one frees the old.
    acme.put(&customer("acme", "c1", "a@x.io")).await.unwrap();
    acme.upsert(&customer("acme", "c2", "b@x.io"))
        .await
        .unwrap();
    acme.put(&customer("acme", "c1", "c@x.io")).await.unwrap();
    assert_eq!(acme.get_unique(by_email("a@x.io")).await.unwrap(), None);
    acme.create(&customer("acme", "c3", "a@x.io"))
        .await
        .unwrap();

    // A (soft) delete frees the value; a restore takes it back, unless
    // another item took it meanwhile.
    acme.delete(Customer::tenant_key("c3")).await.unwrap();
    assert_eq!(acme.get_unique(by_email("a@x.io")).await.unwrap(), None);
    acme.create(&customer("acme", "c4", "a@x.io"))
        .await
        .unwrap();
    let restore = acme.restore(Customer::tenant_key("c3")).await;
    assert!(violation(&restore), "{restore:?}");
    acme.delete(Customer::tenant_key("c4")).await.unwrap();
    acme.restore(Customer::tenant_key("c3")).await.unwrap();
    assert_eq!(
        acme.get_unique(by_email("a@x.io")).await.unwrap(),
        Some(customer("acme", "c3", "a@x.io"))
    );

    // A purge frees it for good.
    acme.purge(Customer::tenant_key("c3")).await.unwrap();
    assert_eq!(stored(&t.client, &Customer::key("acme", "c3")).await, None);
    acme.create(&customer("acme", "c5", "a@x.io"))
        .await
        .unwrap();
}

#[tokio::test]
async fn another_tenants_lookup_is_refused_and_cross_tenant_takes_a_completed_one() {
    let t = table(&[Customer::MODEL]).await;
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    globex
        .create(&customer("globex", "c9", "ada@example.com"))
        .await
        .unwrap();
    let theirs = Customer::by_email("ada@example.com").for_tenant("globex");
    let refused = acme.get_unique(theirs.clone()).await;
    assert!(mismatch(&refused, Some("globex")), "{refused:?}");

    let admin = t.client.cross_tenant();
    let found = admin.get_unique(theirs).await.unwrap();
    assert_eq!(found.map(|c| c.id), Some("c9".to_owned()));
    let tenant_free = admin
        .get_unique(Customer::by_email("ada@example.com"))
        .await;
    assert!(
        matches!(
            tenant_free,
            Err(Error::Validation(ValidationError::InvalidRequest(_)))
        ),
        "{tenant_free:?}"
    );
}

// ---- collections ---------------------------------------------------------

#[tokio::test]
async fn a_tenant_client_queries_its_tenants_collection() {
    let t = table(&[Member::MODEL, Role::MODEL]).await;
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    let member = |tenant: &str, id: &str| Member {
        tenant_id: tenant.into(),
        id: id.into(),
        team: "core".into(),
    };
    let role = |tenant: &str, name: &str| Role {
        tenant_id: tenant.into(),
        name: name.into(),
        team: "core".into(),
    };
    acme.put(&member("acme", "ada")).await.unwrap();
    acme.put(&role("acme", "admin")).await.unwrap();
    globex.put(&member("globex", "bob")).await.unwrap();

    let team = acme
        .query(Team::query(TenantHole, "core"))
        .all()
        .await
        .unwrap();
    assert_eq!(
        team,
        [
            Team::Members(member("acme", "ada")),
            Team::Roles(role("acme", "admin"))
        ]
    );
    let team = globex
        .query(Team::query(TenantHole, "core"))
        .all()
        .await
        .unwrap();
    assert_eq!(team, [Team::Members(member("globex", "bob"))]);
    // A whole query of its own tenant is taken; another tenant's is
    // refused, unsent.
    let own = acme.query(Team::query("acme", "core")).all().await.unwrap();
    assert_eq!(own.len(), 2);
    let refused = acme.query(Team::query("globex", "core")).all().await;
    assert!(mismatch(&refused, Some("globex")), "{refused:?}");
}

// ---- history and purge ---------------------------------------------------

fn journal(tenant: &str, id: &str, text: &str) -> Journal {
    Journal {
        tenant_id: tenant.into(),
        id: id.into(),
        text: text.into(),
        version: 0,
    }
}

#[tokio::test]
async fn a_tenant_client_reads_its_items_history() {
    let t = table(&[Journal::MODEL]).await;
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    let mut v1 = acme.create(&journal("acme", "j1", "draft")).await.unwrap();
    v1.text = "final".into();
    let v2 = acme.put(&v1).await.unwrap();
    globex
        .create(&journal("globex", "j1", "theirs"))
        .await
        .unwrap();

    let history = acme.history(Journal::tenant_key("j1")).all().await.unwrap();
    let texts: Vec<&str> = history.iter().map(|j| j.text.as_str()).collect();
    assert_eq!(texts, ["final", "draft"]);
    assert_eq!(history[0], v2);
    let theirs = globex
        .history(Journal::tenant_key("j1"))
        .all()
        .await
        .unwrap();
    assert_eq!(theirs.len(), 1);
    assert_eq!(
        acme.history(Journal::tenant_key("j1"))
            .version(1)
            .await
            .unwrap()
            .map(|j| j.text),
        Some("draft".to_owned())
    );
    let admin = t.client.cross_tenant();
    let all = admin
        .history(Journal::key("acme", "j1"))
        .all()
        .await
        .unwrap();
    assert_eq!(all, history);

    let refused = acme.history(Journal::key("globex", "j1")).all().await;
    assert!(mismatch(&refused, Some("globex")), "{refused:?}");
}

#[tokio::test]
async fn a_tenant_client_purges_its_items_only() {
    let t = table(&[Journal::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    acme.create(&journal("acme", "j1", "draft")).await.unwrap();
    acme.delete(Journal::tenant_key("j1")).await.unwrap();
    assert!(stored(&t.client, &Journal::key("acme", "j1"))
        .await
        .is_some());
    acme.purge(Journal::tenant_key("j1")).await.unwrap();
    assert_eq!(stored(&t.client, &Journal::key("acme", "j1")).await, None);

    let refused = acme.purge(Journal::key("globex", "j1")).await;
    assert!(mismatch(&refused, Some("globex")), "{refused:?}");

    // `ORG#Xacme` / `m1` is Journal's key for tenant `Xacme` and Memo's
    // for `acme`: acme's purge of its Memo does not remove the Journal.
    t.client
        .cross_tenant()
        .create(&journal("Xacme", "m1", "theirs"))
        .await
        .unwrap();
    let guarded = acme.purge(Memo::tenant_key("m1")).await;
    assert!(
        matches!(guarded, Err(Error::TenantMismatch { .. })),
        "{guarded:?}"
    );
    assert!(stored(&t.client, &Journal::key("Xacme", "m1"))
        .await
        .is_some());
}

// ---- batch writes --------------------------------------------------------

#[tokio::test]
async fn a_tenant_batch_writes_puts_and_deletes_of_its_tenant() {
    let t = table(&[Product::MODEL]).await;
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    globex
        .put(&product("globex", "p1", "tools", 9))
        .await
        .unwrap();
    // More than one transaction's worth.
    let products: Vec<Product> = (0..130)
        .map(|i| product("acme", &format!("p{i}"), "tools", i))
        .collect();
    let out = acme.batch_write().put_all(&products).await.unwrap();
    assert!(out.is_complete(), "{out:?}");
    assert_eq!(out.written, 130);
    let out = acme
        .batch_write()
        .delete(Product::tenant_key("p1"))
        .delete(Product::key("acme", "p2"))
        .put(&product("acme", "p200", "toys", 1))
        .await
        .unwrap();
    assert_eq!(out.written, 3);
    assert_eq!(acme.get(Product::tenant_key("p1")).await.unwrap(), None);
    assert_eq!(acme.get(Product::tenant_key("p2")).await.unwrap(), None);
    assert!(acme
        .get(Product::tenant_key("p200"))
        .await
        .unwrap()
        .is_some());
    // The other tenant's item of the same id is untouched.
    assert_eq!(
        globex.get(Product::tenant_key("p1")).await.unwrap(),
        Some(product("globex", "p1", "tools", 9))
    );
    let listed = acme.query(Product::tenant_primary()).all().await.unwrap();
    assert_eq!(listed.len(), 129);
}

/// A streamed tenant batch: converted as its transactions are built, each
/// refusal reported at its position, everything else written.
#[tokio::test]
async fn a_tenant_batch_streams_its_tenants_entities() {
    let t = table(&[Product::MODEL]).await;
    let (acme, globex) = (t.client.tenant("acme"), t.client.tenant("globex"));
    acme.put(&product("acme", "p7", "tools", 1)).await.unwrap();
    // 230 of acme's (three transactions), with another tenant's at 100
    // and a key the batch's own put already names at 150.
    let streamed = (0..232u32).map(|i| match i {
        100 => product("globex", "g1", "tools", i),
        150 => product("acme", "own", "tools", i),
        _ => product("acme", &format!("s{i}"), "tools", i),
    });
    let out = acme
        .batch_write()
        .put(&product("acme", "own", "toys", 0))
        .put_iter(streamed)
        .await
        .unwrap();
    assert_eq!(out.written, 231, "{out:?}");
    let refused: Vec<(usize, bool)> = out
        .refused
        .iter()
        .map(|r| (r.position, matches!(r.error, Error::TenantMismatch { .. })))
        .collect();
    assert_eq!(refused, [(100, true), (150, false)]);
    assert!(out.unprocessed.is_empty() && out.errors.is_empty());
    let listed = acme.query(Product::tenant_primary()).all().await.unwrap();
    assert_eq!(listed.len(), 232); // p7, own and 230 streamed
    assert_eq!(
        acme.get(Product::tenant_key("own"))
            .await
            .unwrap()
            .map(|p| p.category),
        Some("toys".to_owned()),
        "the batch's own put, not the repeat"
    );
    assert!(globex
        .query(Product::tenant_primary())
        .all()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_tenant_batch_refuses_what_it_cannot_write_before_sending() {
    let t = table(&[Product::MODEL, Journal::MODEL]).await;
    let acme = t.client.tenant("acme");
    let ours = product("acme", "p1", "tools", 1);

    // Another tenant's entity, or key.
    let theirs = acme
        .batch_write()
        .put(&ours)
        .put(&product("globex", "p2", "tools", 1))
        .await;
    assert!(mismatch(&theirs, Some("globex")), "{theirs:?}");
    let their_key = acme
        .batch_write()
        .put(&ours)
        .delete(Product::key("globex", "p2"))
        .await;
    assert!(mismatch(&their_key, Some("globex")), "{their_key:?}");
    // A key named twice.
    let twice = acme
        .batch_write()
        .put(&ours)
        .delete(Product::tenant_key("p1"))
        .await;
    assert!(
        matches!(
            twice,
            Err(Error::Validation(ValidationError::DuplicateKey { .. }))
        ),
        "{twice:?}"
    );
    // (A soft-delete entity's delete does not compile:
    // tests/ui/lifecycle/tenant_batch_delete_soft_delete.rs.)
    // Nothing was sent.
    assert_eq!(acme.get(Product::tenant_key("p1")).await.unwrap(), None);
}

#[tokio::test]
async fn a_tenant_batch_purges_a_soft_delete_entity() {
    let t = table(&[Journal::MODEL]).await;
    let acme = t.client.tenant("acme");
    let journal = Journal {
        tenant_id: "acme".into(),
        id: "j1".into(),
        text: "one".into(),
        version: 0,
    };
    acme.create(&journal).await.unwrap();
    acme.delete(Journal::tenant_key("j1")).await.unwrap();
    let out = acme
        .batch_write()
        .purge(Journal::tenant_key("j1"))
        .await
        .unwrap();
    assert_eq!(out.written, 1);
    let gone = acme
        .get(Journal::tenant_key("j1"))
        .include_deleted(true)
        .await
        .unwrap();
    assert_eq!(gone, None);
}

#[tokio::test]
async fn a_tenant_batch_never_writes_over_another_entitys_item() {
    let t = table(&[Note::MODEL, Memo::MODEL]).await;
    let acme = t.client.tenant("acme");
    // `ORG#Xacme` / `n1`: Note's key for tenant `Xacme`, Memo's for `acme`.
    let theirs = Note {
        tenant_id: "Xacme".into(),
        id: "n1".into(),
        text: "theirs".into(),
    };
    t.client.cross_tenant().put(&theirs).await.unwrap();
    let memo = |id: &str| Memo {
        tenant_id: "acme".into(),
        id: id.into(),
        text: "ours".into(),
    };

    let out = acme.batch_write().put(&memo("n1")).await.unwrap();
    assert_eq!(out.written, 0);
    assert!(
        matches!(out.errors.as_slice(), [Error::TenantMismatch { .. }]),
        "{out:?}"
    );
    assert_eq!(out.unprocessed.len(), 1);
    let out = acme
        .batch_write()
        .delete(Memo::tenant_key("n1"))
        .await
        .unwrap();
    assert_eq!(out.written, 0, "{out:?}");
    assert_eq!(
        t.client
            .cross_tenant()
            .get(Note::key("Xacme", "n1"))
            .await
            .unwrap(),
        Some(theirs)
    );
}
