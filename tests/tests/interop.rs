//! Reading and writing a table ElectroDB wrote, in its documented layout
//! (its README's `MallStore` example): partition key
//! `$<service>#<attr>_<value>#...`, sort key `$<entity>_<version>#...`,
//! attribute names and values lowercased in keys, the entity name in
//! `__edb_e__` and the version in `__edb_v__` as a string. Items are built
//! by hand in that format with the raw SDK and read through the client, and
//! what the client writes is compared attribute by attribute with what
//! ElectroDB writes.

mod common;

use common::{put_raw, s, stored};
use entity_client::{Entity, Item};
use entity_tests::harness::table;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "MallStore",
    version = 1,
    rename_all = "camelCase",
    identity_attribute = "__edb_e__",
    version_attribute = "__edb_v__",
    version_type = "string"
)]
#[pk(
    format = "$mallstoredirectory#cityid_{city_id}#mallid_{mall_id}",
    value_casing = "lower"
)]
#[sk(
    format = "$mallstore_1#buildingid_{building_id}#storeid_{store_id}",
    value_casing = "lower"
)]
#[index(units(
    gsi = "gsi1",
    pk(
        format = "$mallstoredirectory#mallid_{mall_id}",
        value_casing = "lower"
    ),
    sk(
        format = "$mallstore_1#buildingid_{building_id}#unitid_{unit_id}",
        value_casing = "lower"
    )
))]
struct MallStore {
    city_id: String,
    mall_id: String,
    store_id: String,
    building_id: String,
    unit_id: String,
    category: String,
    rent: String,
}

fn latte_larrys() -> MallStore {
    MallStore {
        city_id: "Atlanta1".into(),
        mall_id: "EastPointe".into(),
        store_id: "LatteLarrys".into(),
        building_id: "BuildingA1".into(),
        unit_id: "B47".into(),
        category: "food/coffee".into(),
        rent: "1500.00".into(),
    }
}

/// The item ElectroDB's README shows for `latte_larrys()`: attributes as
/// given, keys lowercased, identity attributes as strings.
fn electrodb_item() -> Item {
    [
        ("cityId", "Atlanta1"),
        ("mallId", "EastPointe"),
        ("storeId", "LatteLarrys"),
        ("buildingId", "BuildingA1"),
        ("unitId", "B47"),
        ("category", "food/coffee"),
        ("rent", "1500.00"),
        (
            "pk",
            "$mallstoredirectory#cityid_atlanta1#mallid_eastpointe",
        ),
        (
            "sk",
            "$mallstore_1#buildingid_buildinga1#storeid_lattelarrys",
        ),
        ("gsi1pk", "$mallstoredirectory#mallid_eastpointe"),
        ("gsi1sk", "$mallstore_1#buildingid_buildinga1#unitid_b47"),
        ("__edb_e__", "MallStore"),
        ("__edb_v__", "1"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), s(value)))
    .collect()
}

#[tokio::test]
async fn reads_items_electrodb_wrote() {
    let t = table(&[MallStore::MODEL]).await;
    let c = &t.client;
    put_raw(c, electrodb_item()).await;
    // Another ElectroDB entity in the same GSI partition, and an item of a
    // later version: neither is read as a MallStore.
    let mut office = electrodb_item();
    office.insert("__edb_e__".into(), s("MallOffice"));
    office.insert("sk".into(), s("$malloffice_1#officeid_o1"));
    office.insert("gsi1sk".into(), s("$malloffice_1#buildingid_buildinga1"));
    put_raw(c, office).await;
    let mut later = electrodb_item();
    later.insert("__edb_v__".into(), s("2"));
    later.insert(
        "sk".into(),
        s("$mallstore_1#buildingid_buildinga1#storeid_later"),
    );
    later.insert(
        "gsi1sk".into(),
        s("$mallstore_1#buildingid_buildinga1#unitid_b48"),
    );
    put_raw(c, later).await;

    // The key is composed lowercased from values in any case.
    let key = MallStore::key("Atlanta1", "EastPointe", "BuildingA1", "LatteLarrys");
    assert_eq!(c.get(key).await.unwrap(), Some(latte_larrys()));
    let key = MallStore::key("ATLANTA1", "eastpointe", "buildinga1", "LATTELARRYS");
    assert_eq!(c.get(key).await.unwrap(), Some(latte_larrys()));

    let by_unit = c
        .query(
            MallStore::units("EastPointe")
                .building_id()
                .eq("BuildingA1")
                .unit_id()
                .eq("B47"),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(by_unit, [latte_larrys()]);
    let in_building = c
        .query(
            MallStore::units("EastPointe")
                .building_id()
                .eq("buildingA1"),
        )
        .all()
        .await
        .unwrap();
    assert_eq!(in_building, [latte_larrys()]);
    let scanned = c.scan::<MallStore>().all().await.unwrap();
    assert_eq!(scanned, [latte_larrys()]);
}

#[tokio::test]
async fn writes_items_electrodb_reads() {
    let t = table(&[MallStore::MODEL]).await;
    let c = &t.client;
    let store = latte_larrys();
    assert_eq!(store.to_item().unwrap(), electrodb_item());
    c.put(&store).await.unwrap();
    assert_eq!(
        stored(
            c,
            &MallStore::key("Atlanta1", "EastPointe", "BuildingA1", "LatteLarrys")
        )
        .await
        .unwrap(),
        electrodb_item()
    );
}

#[tokio::test]
async fn value_casing_is_lossy_and_parsers_return_the_folded_value() {
    let t = table(&[MallStore::MODEL]).await;
    let c = &t.client;
    let store = latte_larrys();
    // The parser gives back what the key holds: the folded values.
    assert_eq!(
        MallStore::parse_pk(&store.pk()).unwrap(),
        ("atlanta1".to_owned(), "eastpointe".to_owned())
    );
    assert_eq!(
        MallStore::parse_sk(&store.sk()).unwrap(),
        ("buildinga1".to_owned(), "lattelarrys".to_owned())
    );
    // Escapes keep their case (`%1F`), so every folded key parses.
    let odd = MallStore::pk_of("New York\u{1f}#A", "M");
    assert_eq!(odd, "$mallstoredirectory#cityid_new%20york%1F%23a#mallid_m");
    assert_eq!(
        MallStore::parse_pk(&odd).unwrap(),
        ("new york\u{1f}#a".to_owned(), "m".to_owned())
    );
    // Two stores whose ids differ only in case are one item: the second
    // write replaces the first.
    c.put(&store).await.unwrap();
    let shouting = MallStore {
        store_id: "LATTELARRYS".into(),
        rent: "9999.00".into(),
        ..store.clone()
    };
    c.put(&shouting).await.unwrap();
    let all = c.scan::<MallStore>().all().await.unwrap();
    assert_eq!(all, [shouting]);
}
