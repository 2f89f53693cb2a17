//! Multi-tenancy (seed 004): tenant entities are read and written through
//! `client.tenant(..)`, which completes tenant-free keys and queries, sees
//! only its tenant's items, refuses another tenant's data and cursors
//! before sending, and `client.cross_tenant()` reaches every tenant.

mod common;

use common::{s, stored_at};
use entity_client::{Entity, Error, Explain, Tenant};
use entity_tests::harness::table;
use entity_tests::tenancy::{product, Product};

/// Seed 004's shared users: `USER#common` / `<provider>#<userId>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "User", tenant = tenant_code)]
#[pk(format = "USER#{tenant_code}")]
#[sk(format = "{provider}#{user_id}")]
struct User {
    tenant_code: String,
    provider: String,
    user_id: String,
    email: String,
}

/// An entity without a tenant: the plain client, unchanged.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app")]
#[pk(key)]
#[sk()]
struct Setting {
    key: String,
    value: String,
}

fn mismatch(expected: &str, found: Option<&str>) -> impl Fn(&Error) -> bool {
    let (expected, found) = (expected.to_owned(), found.map(str::to_owned));
    move |error| matches!(error, Error::TenantMismatch { expected: e, found: f } if *e == expected && *f == found)
}

#[tokio::test]
async fn each_tenant_sees_only_its_own_items() {
    let t = table(&[Product::MODEL, Setting::MODEL]).await;
    let (a, b) = (t.client.tenant("t-a"), t.client.tenant("t-b"));
    let tools_a = [
        product("t-a", "p1", "tools", 5),
        product("t-a", "p2", "tools", 9),
    ];
    let tools_b = [
        product("t-b", "p1", "tools", 7),
        product("t-b", "p2", "toys", 3),
    ];
    for p in &tools_a {
        a.create(p).await.unwrap();
    }
    for p in &tools_b {
        b.create(p).await.unwrap();
    }

    // Seed 004's keys, one partition per tenant.
    let stored = stored_at(&t.client, "PRODUCT#t-a", "p1").await;
    assert_eq!(stored["name"], s("p1 of t-a"));
    assert_eq!(stored["gsi1pk"], s("PRODUCT#t-a#tools"));
    let stored = stored_at(&t.client, "PRODUCT#t-b", "p1").await;
    assert_eq!(stored["name"], s("p1 of t-b"));

    // get: the same id, each tenant's own item.
    assert_eq!(
        a.get(Product::tenant_key("p1")).await.unwrap(),
        Some(tools_a[0].clone())
    );
    assert_eq!(
        b.get(Product::tenant_key("p1")).await.unwrap(),
        Some(tools_b[0].clone())
    );
    assert_eq!(
        t.client
            .tenant("t-c")
            .get(Product::tenant_key("p1"))
            .await
            .unwrap(),
        None
    );
    // A whole key of the client's own tenant is taken too.
    assert_eq!(
        a.get(Product::key("t-a", "p2")).await.unwrap(),
        Some(tools_a[1].clone())
    );

    // query: the table partition and the index, completed with the tenant.
    assert_eq!(
        a.query(Product::tenant_primary()).all().await.unwrap(),
        tools_a.to_vec()
    );
    assert_eq!(
        b.query(Product::tenant_primary()).all().await.unwrap(),
        tools_b.to_vec()
    );
    let tools = b
        .query(Product::tenant_by_category("tools"))
        .all()
        .await
        .unwrap();
    assert_eq!(tools, vec![tools_b[0].clone()]);
    let cheap = a
        .query(Product::tenant_by_category("tools").price().eq(9u32))
        .all()
        .await
        .unwrap();
    assert_eq!(cheap, vec![tools_a[1].clone()]);

    // batch get: the tenant's items for the same ids.
    let mut got = a
        .batch_get([Product::tenant_key("p1"), Product::tenant_key("p2")])
        .await
        .unwrap()
        .items;
    got.sort_by(|x, y| x.product_id.cmp(&y.product_id));
    assert_eq!(got, tools_a.to_vec());

    // update, patch, delete touch the tenant's item only.
    let f = Product::fields();
    a.patch(Product::tenant_key("p1"))
        .set(f.name, "renamed")
        .await
        .unwrap();
    a.delete(Product::tenant_key("p2")).await.unwrap();
    assert_eq!(
        a.get(Product::tenant_key("p1"))
            .await
            .unwrap()
            .unwrap()
            .name,
        "renamed"
    );
    assert_eq!(a.get(Product::tenant_key("p2")).await.unwrap(), None);
    assert_eq!(
        b.query(Product::tenant_primary()).all().await.unwrap(),
        tools_b.to_vec()
    );

    // Entities without a tenant keep working on the plain client.
    let setting = Setting {
        key: "k".into(),
        value: "v".into(),
    };
    t.client.put(&setting).await.unwrap();
    assert_eq!(
        t.client.get(Setting::key("k")).await.unwrap(),
        Some(setting)
    );
}

#[tokio::test]
async fn the_common_tenant_holds_shared_data() {
    let t = table(&[User::MODEL]).await;
    let user = User {
        tenant_code: Tenant::COMMON.into(),
        provider: "sso".into(),
        user_id: "u1".into(),
        email: "u1@example.com".into(),
    };
    t.client.common().put(&user).await.unwrap();
    // Seed 004's `USER#common` / `sso#<userId>`.
    assert_eq!(
        stored_at(&t.client, "USER#common", "sso#u1").await["email"],
        s("u1@example.com")
    );

    let common = t.client.tenant(Tenant::COMMON);
    assert_eq!(common.tenant(), "common");
    assert_eq!(
        common.get(User::tenant_key("sso", "u1")).await.unwrap(),
        Some(user.clone())
    );
    assert_eq!(
        t.client
            .tenant("t-a")
            .get(User::tenant_key("sso", "u1"))
            .await
            .unwrap(),
        None
    );
    // Another tenant cannot write into the common partition.
    let error = t.client.tenant("t-a").put(&user).await.unwrap_err();
    assert!(mismatch("t-a", Some("common"))(&error), "{error:?}");
}

#[tokio::test]
async fn data_and_keys_of_another_tenant_are_refused_before_sending() {
    let t = table(&[Product::MODEL]).await;
    let (a, b) = (t.client.tenant("t-a"), t.client.tenant("t-b"));
    let theirs = product("t-b", "p1", "tools", 5);
    b.put(&theirs).await.unwrap();

    // A put of another tenant's entity: a typed error, nothing written.
    for error in [
        a.put(&product("t-b", "p9", "tools", 1)).await.unwrap_err(),
        a.create(&product("t-b", "p9", "tools", 1))
            .await
            .unwrap_err(),
        a.upsert(&product("t-b", "p9", "tools", 1))
            .await
            .unwrap_err(),
    ] {
        assert!(mismatch("t-a", Some("t-b"))(&error), "{error:?}");
    }
    assert_eq!(b.get(Product::tenant_key("p9")).await.unwrap(), None);

    // Keys and queries composed for tenant b, handed to tenant a's client:
    // the request is checked before it is sent.
    let refused = mismatch("t-a", Some("t-b"));
    let error = a.get(Product::key("t-b", "p1")).await.unwrap_err();
    assert!(refused(&error), "{error:?}");
    let f = Product::fields();
    let error = a
        .update(Product::key("t-b", "p1"))
        .set(f.name, "x")
        .await
        .unwrap_err();
    assert!(refused(&error), "{error:?}");
    let error = a.delete(Product::key("t-b", "p1")).await.unwrap_err();
    assert!(refused(&error), "{error:?}");
    let error = a
        .query(Product::by_category("t-b", "tools"))
        .all()
        .await
        .unwrap_err();
    assert!(refused(&error), "{error:?}");
    // A batch reports the chunk's error in its output, reading nothing.
    let out = a
        .batch_get([Product::key("t-a", "p1"), Product::key("t-b", "p1")])
        .await
        .unwrap();
    assert!(out.items.is_empty());
    assert!(out.errors.iter().any(&refused), "{out:?}");
    // Explain runs the same check: nothing to explain.
    let error = a
        .get(Product::key("t-b", "p1"))
        .explain()
        .await
        .unwrap_err();
    assert!(refused(&error), "{error:?}");

    // Nothing of b's was changed.
    assert_eq!(
        b.get(Product::tenant_key("p1")).await.unwrap(),
        Some(theirs)
    );
}

#[tokio::test]
async fn a_cursor_of_one_tenant_is_refused_by_another() {
    let t = table(&[Product::MODEL]).await;
    let (a, b) = (t.client.tenant("t-a"), t.client.tenant("t-b"));
    for (tenant, client) in [("t-a", &a), ("t-b", &b)] {
        for id in ["p1", "p2", "p3"] {
            client.put(&product(tenant, id, "tools", 1)).await.unwrap();
        }
    }
    let page = a.query(Product::tenant_primary().limit(1)).await.unwrap();
    assert_eq!(page.items[0].product_id, "p1");
    let cursor = page.cursor.expect("more pages");

    // The cursor resumes tenant a's query...
    let rest = a
        .query(Product::tenant_primary())
        .cursor(&cursor)
        .all()
        .await
        .unwrap();
    let ids: Vec<_> = rest
        .iter()
        .map(|p| (p.tenant_id.as_str(), p.product_id.as_str()))
        .collect();
    assert_eq!(ids, [("t-a", "p2"), ("t-a", "p3")]);
    // ...and is refused by tenant b, and by the plain client's query of a's
    // partition: it is bound to tenant a's client.
    let error = b
        .query(Product::tenant_primary())
        .cursor(&cursor)
        .await
        .unwrap_err();
    assert!(matches!(error, Error::InvalidCursor { .. }), "{error:?}");
    let error = t
        .client
        .cross_tenant()
        .query(Product::primary("t-a"))
        .cursor(&cursor)
        .await
        .unwrap_err();
    assert!(matches!(error, Error::InvalidCursor { .. }), "{error:?}");
}

#[tokio::test]
async fn cross_tenant_reaches_every_tenant() {
    let t = table(&[Product::MODEL]).await;
    let (pa, pb) = (
        product("t-a", "p1", "tools", 1),
        product("t-b", "p1", "tools", 2),
    );
    t.client.tenant("t-a").put(&pa).await.unwrap();
    let cross = t.client.cross_tenant();
    cross.put(&pb).await.unwrap();

    assert_eq!(
        cross.get(Product::key("t-a", "p1")).await.unwrap(),
        Some(pa.clone())
    );
    assert_eq!(
        cross.get(Product::key("t-b", "p1")).await.unwrap(),
        Some(pb.clone())
    );
    let mut every = cross.scan::<Product>().all().await.unwrap();
    every.sort_by(|x, y| x.tenant_id.cmp(&y.tenant_id));
    assert_eq!(every, vec![pa, pb.clone()]);
    assert_eq!(
        cross
            .query(Product::by_category("t-b", "tools"))
            .all()
            .await
            .unwrap(),
        vec![pb]
    );
}

#[tokio::test]
async fn tenant_requests_explain_with_the_tenant_filled_in() {
    let t = table(&[Product::MODEL]).await;
    let a = t.client.tenant("t a");
    let get = a.get(Product::tenant_key("p1")).explain().await.unwrap();
    let json = get.request().unwrap().json();
    assert_eq!(json["Key"]["pk"]["S"], "PRODUCT#t%20a");
    let query = a
        .query(Product::tenant_by_category("tools"))
        .explain()
        .await
        .unwrap();
    let json = query.request().unwrap().json();
    assert_eq!(
        json["ExpressionAttributeValues"][":pk"]["S"],
        "PRODUCT#t%20a#tools"
    );
}
