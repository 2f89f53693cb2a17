//! Entity versions: an item of another version is never read as the
//! current one. With no `upgrade_from` it is skipped by queries, scans and
//! collections and is a `DecodeError::Version` for `get`; with a chain of
//! `upgrade_from`s it is read through each upgrade, in every read.

mod common;

use common::{n, put_raw, s, stored};
use entity_client::{Collection, DecodeError, Entity, Error};
use entity_tests::harness::table;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Note", version = 1)]
#[pk(note_id)]
#[sk()]
#[index(owner_notes(gsi = "gsi1", collection = "ownerNotes", pk(owner), sk(note_id)))]
struct NoteV1 {
    note_id: String,
    owner: String,
    text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Note", version = 2, upgrade_from = NoteV1)]
#[pk(note_id)]
#[sk()]
#[index(owner_notes(gsi = "gsi1", collection = "ownerNotes", pk(owner), sk(note_id)))]
struct NoteV2 {
    note_id: String,
    owner: String,
    title: String,
    body: String,
}

impl From<NoteV1> for NoteV2 {
    fn from(v1: NoteV1) -> Self {
        let (title, body) = v1.text.split_once('\n').unwrap_or((&v1.text, ""));
        NoteV2 {
            title: title.to_owned(),
            body: body.to_owned(),
            note_id: v1.note_id,
            owner: v1.owner,
        }
    }
}

/// The current version: reads 1 through 2.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Note", version = 3, upgrade_from = NoteV2)]
#[pk(note_id)]
#[sk()]
#[index(owner_notes(gsi = "gsi1", collection = "ownerNotes", pk(owner), sk(note_id)))]
struct Note {
    note_id: String,
    owner: String,
    title: String,
    body: String,
    words: u32,
}

impl From<NoteV2> for Note {
    fn from(v2: NoteV2) -> Self {
        let words = v2.body.split_whitespace().count() as u32;
        Note {
            note_id: v2.note_id,
            owner: v2.owner,
            title: v2.title,
            body: v2.body,
            words,
        }
    }
}

/// Version 2 of the same items, with no upgrade: reads only version 2.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Note", version = 2)]
#[pk(note_id)]
#[sk()]
#[index(owner_notes(gsi = "gsi1", collection = "ownerNotes", pk(owner), sk(note_id)))]
struct StrictNote {
    note_id: String,
    owner: String,
    title: String,
    body: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "app", name = "Owner")]
#[pk(owner)]
#[sk()]
#[index(owner_notes(gsi = "gsi1", collection = "ownerNotes", pk(owner), sk()))]
struct Owner {
    owner: String,
    display: String,
}

#[derive(Collection, Debug, PartialEq)]
#[collection(name = "ownerNotes", pk(owner: String))]
enum OwnerNotes {
    Owners(Owner),
    Notes(Note),
}

fn v1(id: &str) -> NoteV1 {
    NoteV1 {
        note_id: id.into(),
        owner: "ann".into(),
        text: format!("{id} title\nsome body words"),
    }
}

fn v2(id: &str) -> NoteV2 {
    NoteV2 {
        note_id: id.into(),
        owner: "ann".into(),
        title: format!("{id} title"),
        body: "two words".into(),
    }
}

fn v3(id: &str) -> Note {
    Note {
        note_id: id.into(),
        owner: "ann".into(),
        title: format!("{id} title"),
        body: "one".into(),
        words: 1,
    }
}

/// Each version's note as the current version reads it.
fn upgraded() -> Vec<Note> {
    let from_v1 = Note {
        body: "some body words".into(),
        words: 3,
        ..v3("n1")
    };
    let from_v2 = Note {
        body: "two words".into(),
        words: 2,
        ..v3("n2")
    };
    vec![from_v1, from_v2, v3("n3")]
}

/// Notes n1 (version 1), n2 (version 2), n3 (version 3), n9 (version 9, a
/// future version no entity here reads), and ann herself.
async fn notes_of_every_version() -> entity_tests::harness::TestTable {
    let t = table(&[Note::MODEL]).await;
    let c = &t.client;
    c.put(&v1("n1")).await.unwrap();
    c.put(&v2("n2")).await.unwrap();
    c.put(&v3("n3")).await.unwrap();
    let mut future = v3("n9").to_item().unwrap();
    future.insert("__version".into(), n("9"));
    put_raw(c, future).await;
    c.put(&Owner {
        owner: "ann".into(),
        display: "Ann".into(),
    })
    .await
    .unwrap();
    t
}

fn ids<T>(items: &[T], id: impl Fn(&T) -> &str) -> Vec<String> {
    let mut ids: Vec<String> = items.iter().map(|i| id(i).to_owned()).collect();
    ids.sort();
    ids
}

/// Versions of one entity share its name and keys by design: one table
/// holds them all, where two entities of one name would be refused.
#[tokio::test]
async fn versions_of_one_entity_share_a_table() {
    assert_eq!(Note::MODEL.overlap(NoteV1::MODEL), None);
    assert_eq!(Note::MODEL.overlap(NoteV2::MODEL), None);
    // Two structs of one version that store alike are one entity.
    assert_eq!(NoteV2::MODEL.overlap(StrictNote::MODEL), None);
    let t = table(&[NoteV1::MODEL, NoteV2::MODEL, Note::MODEL, Owner::MODEL]).await;
    t.client.put(&v1("n1")).await.unwrap();
    assert_eq!(t.client.scan::<Note>().all().await.unwrap().len(), 1);
}

#[tokio::test]
async fn items_carry_their_version_and_get_reads_old_ones_through_the_chain() {
    let t = notes_of_every_version().await;
    let c = &t.client;
    let raw = stored(c, &NoteV1::key("n1")).await.unwrap();
    assert_eq!(raw["__entity"], s("Note"));
    assert_eq!(raw["__version"], n("1"));

    let [from_v1, from_v2, current] = <[Note; 3]>::try_from(upgraded()).unwrap();
    assert_eq!(c.get(Note::key("n1")).await.unwrap(), Some(from_v1));
    assert_eq!(c.get(Note::key("n2")).await.unwrap(), Some(from_v2));
    assert_eq!(c.get(Note::key("n3")).await.unwrap(), Some(current));
    // A middle version reads its own and older items, never newer ones.
    assert_eq!(
        c.get(NoteV2::key("n1")).await.unwrap(),
        Some(NoteV2::from(v1("n1")))
    );
    let newer = c.get(NoteV2::key("n3")).await.unwrap_err();
    assert!(
        matches!(&newer, Error::Decode(DecodeError::Version { stored: Some(v), current: 2, .. }) if v == "3"),
        "{newer:?}"
    );
}

#[tokio::test]
async fn get_of_another_version_without_an_upgrade_is_a_version_error() {
    let t = notes_of_every_version().await;
    let c = &t.client;
    assert_eq!(
        c.get(StrictNote::key("n2")).await.unwrap(),
        Some(StrictNote {
            note_id: "n2".into(),
            owner: "ann".into(),
            title: "n2 title".into(),
            body: "two words".into(),
        })
    );
    for (id, stored) in [("n1", "1"), ("n3", "3"), ("n9", "9")] {
        let error = c.get(StrictNote::key(id)).await.unwrap_err();
        match error {
            Error::Decode(DecodeError::Version {
                entity,
                attribute,
                stored: Some(found),
                current,
            }) => {
                assert_eq!(
                    (entity, attribute, found.as_str(), current),
                    ("Note", "__version", stored, 2)
                );
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    // The current version does not read a future one either.
    let future = c.get(Note::key("n9")).await.unwrap_err();
    assert!(
        matches!(
            future,
            Error::Decode(DecodeError::Version { current: 3, .. })
        ),
        "{future:?}"
    );
    // Nor an item with no version at all.
    let mut unversioned = v3("n0").to_item().unwrap();
    unversioned.remove("__version");
    put_raw(c, unversioned).await;
    let missing = c.get(Note::key("n0")).await.unwrap_err();
    assert!(
        matches!(
            missing,
            Error::Decode(DecodeError::Version { stored: None, .. })
        ),
        "{missing:?}"
    );
}

#[tokio::test]
async fn queries_and_scans_read_old_versions_through_upgrades_and_skip_the_rest() {
    let t = notes_of_every_version().await;
    let c = &t.client;

    let mut all = c.scan::<Note>().all().await.unwrap();
    all.sort_by(|a, b| a.note_id.cmp(&b.note_id));
    assert_eq!(all, upgraded(), "n9 is skipped, the rest upgraded");

    let strict = c.scan::<StrictNote>().all().await.unwrap();
    assert_eq!(ids(&strict, |n| &n.note_id), ["n2"]);

    // A query by the table key reads one item through the chain.
    let one = c.query(Note::primary("n1")).all().await.unwrap();
    assert_eq!(one, upgraded()[..1]);
    assert!(c
        .query(StrictNote::primary("n1"))
        .all()
        .await
        .unwrap()
        .is_empty());
    // `.strict(true)` says why an item was not read.
    let error = c
        .query(StrictNote::primary("n1"))
        .strict(true)
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Decode(DecodeError::Version { current: 2, .. })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn batch_get_reads_old_versions_through_upgrades() {
    let t = notes_of_every_version().await;
    let c = &t.client;
    let out = c
        .batch_get(["n1", "n2", "n3"].map(Note::key))
        .await
        .unwrap();
    let mut items = out.items;
    items.sort_by(|a, b| a.note_id.cmp(&b.note_id));
    assert_eq!(items, upgraded());
    assert!(out.errors.is_empty());

    // Without an upgrade, each other version is an error, by key.
    let out = c
        .batch_get(["n1", "n2", "n9"].map(StrictNote::key))
        .await
        .unwrap();
    assert_eq!(ids(&out.items, |n| &n.note_id), ["n2"]);
    assert_eq!(out.errors.len(), 2, "{:?}", out.errors);
    assert!(out
        .errors
        .iter()
        .all(|e| matches!(e, Error::Decode(DecodeError::Version { .. }))));
}

#[tokio::test]
async fn collections_read_old_versions_through_upgrades_and_skip_the_rest() {
    let t = notes_of_every_version().await;
    let c = &t.client;
    let all = c.query(OwnerNotes::query("ann")).grouped().await.unwrap();
    assert_eq!(
        all.owners,
        [Owner {
            owner: "ann".into(),
            display: "Ann".into()
        }]
    );
    let mut notes = all.notes;
    notes.sort_by(|a, b| a.note_id.cmp(&b.note_id));
    assert_eq!(notes, upgraded());

    let error = c
        .query(OwnerNotes::query("ann"))
        .strict(true)
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Decode(DecodeError::Version { stored: Some(v), current: 3, .. }) if v == "9"),
        "{error:?}"
    );
}

/// An update names the current version's attributes, which an older
/// item's upgrade may not read (version 1 stores `text`, not `title`): the
/// item is upgraded in place first, as `migrate` rewrites it, then
/// updated, so the change is the entity's.
#[tokio::test]
async fn an_update_of_an_old_item_upgrades_it_first() {
    let t = notes_of_every_version().await;
    let c = &t.client;
    let f = Note::fields();
    let renamed = c
        .patch(Note::key("n1"))
        .set(f.title, "renamed")
        .return_new()
        .await
        .unwrap();
    let expected = Note {
        title: "renamed".into(),
        ..Note::from(NoteV2::from(v1("n1")))
    };
    assert_eq!(renamed, expected);
    assert_eq!(c.get(Note::key("n1")).await.unwrap(), Some(expected));
    let raw = stored(c, &Note::key("n1")).await.unwrap();
    assert_eq!(raw["__version"], n("3"));
    assert!(!raw.contains_key("text"), "{raw:?}");
    // The caller's condition is met by the upgraded item.
    let words = c
        .patch(Note::key("n2"))
        .add(f.words, 1u32)
        .condition(f.words.eq(2u32))
        .return_new()
        .await
        .unwrap();
    assert_eq!(words.words, 3);
    // A version no upgrade reads is refused as a get refuses it, unchanged.
    let future = c.patch(Note::key("n9")).set(f.title, "x").await;
    assert!(
        matches!(future, Err(Error::Decode(DecodeError::Version { .. }))),
        "{future:?}"
    );
    assert_eq!(
        stored(c, &Note::key("n9")).await.unwrap()["__version"],
        n("9")
    );
    // A new item created by an update is of the current version.
    c.update(Note::key("n7")).set(f.title, "new").await.unwrap();
    assert_eq!(
        stored(c, &Note::key("n7")).await.unwrap()["__version"],
        n("3")
    );
}

/// Configured identity attributes: items record the entity in `kind` and
/// `rev`, queries and scans filter on them, and `__entity` is a field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    schema = "app",
    name = "Tag",
    identity_attribute = "kind",
    version_attribute = "rev",
    version_type = "string"
)]
#[pk(tag)]
#[sk()]
struct Tag {
    tag: String,
    #[entity(rename = "__entity")]
    legacy_kind: String,
}

#[tokio::test]
async fn identity_attributes_are_the_entitys_own() {
    let t = table(&[Tag::MODEL, Note::MODEL]).await;
    let c = &t.client;
    let tag = Tag {
        tag: "rust".into(),
        legacy_kind: "whatever".into(),
    };
    c.put(&tag).await.unwrap();
    c.put(&v3("n1")).await.unwrap();
    let raw = stored(c, &Tag::key("rust")).await.unwrap();
    assert_eq!(raw["kind"], s("Tag"));
    assert_eq!(raw["rev"], s("1"));
    assert_eq!(raw["__entity"], s("whatever"));
    assert!(!raw.contains_key("__version"));
    assert_eq!(c.get(Tag::key("rust")).await.unwrap(), Some(tag.clone()));
    assert_eq!(
        c.scan::<Tag>().all().await.unwrap(),
        std::slice::from_ref(&tag)
    );
    assert_eq!(c.scan::<Note>().all().await.unwrap(), [v3("n1")]);
    assert_eq!(c.query(Tag::primary("rust")).all().await.unwrap(), [tag]);
    // A number in the version attribute reads too.
    let mut numbered = raw.clone();
    numbered.insert("rev".into(), n("1"));
    numbered.insert("tag".into(), s("go"));
    numbered.insert("pk".into(), s(&Tag::key("go").pk));
    put_raw(c, numbered).await;
    assert!(c.get(Tag::key("go")).await.unwrap().is_some());
}

/// The current version stored as text (`"3"`, as another writer may store
/// it) reads, and is updated as it is: no upgrade, no failed condition.
#[tokio::test]
async fn an_update_meets_the_current_version_stored_as_text() {
    let t = table(&[Note::MODEL]).await;
    let c = &t.client;
    let mut item = v3("n4").to_item().unwrap();
    item.insert("__version".into(), s("3"));
    put_raw(c, item).await;
    let f = Note::fields();
    let renamed = c
        .patch(Note::key("n4"))
        .set(f.title, "renamed")
        .return_new()
        .await
        .unwrap();
    assert_eq!(renamed.title, "renamed");
    assert_eq!(
        stored(c, &Note::key("n4")).await.unwrap()["__version"],
        s("3")
    );
}
