//! A projected get (`get(key).project([..])`) reads an item as a whole get
//! does: another entity's item, or a history snapshot's key, is refused
//! with the same error; an item of an older entity version is
//! read through `upgrade_from` (or refused, without one), and projected
//! from the entity it reads as.

use entity_client::{DecodeError, Entity, Error, ValidationError};
use entity_tests::harness::table;

/// Two entities whose keys are written alike: `K#<id>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Left")]
#[pk(format = "K#{id}")]
struct Left {
    id: String,
    title: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Right")]
#[pk(format = "K#{id}")]
struct Right {
    id: String,
    title: String,
}

fn wrong_entity<T: std::fmt::Debug>(read: &Result<T, Error>) -> bool {
    matches!(read, Err(Error::Decode(DecodeError::WrongEntity { .. })))
}

#[tokio::test]
async fn another_entitys_item_is_refused_as_a_get_refuses_it() {
    let t = table(&[Left::MODEL]).await;
    let left = Left {
        id: "1".into(),
        title: "left's".into(),
    };
    t.client.put(&left).await.unwrap();
    let whole = t.client.get(Right::key("1")).await;
    assert!(wrong_entity(&whole), "{whole:?}");
    let f = Right::fields();
    let projected = t
        .client
        .get(Right::key("1"))
        .project([f.title.name()])
        .await;
    assert!(wrong_entity(&projected), "{projected:?}");
    // Its own entity still reads it.
    let own = Left::fields();
    let mine = t.client.get(Left::key("1")).project([own.title.name()]);
    assert_eq!(
        mine.await.unwrap().unwrap().get(own.title).unwrap(),
        "left's"
    );
}

/// A history entity whose sort key can take the text of a snapshot's.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "pg", history)]
#[pk(id)]
#[sk(rev)]
struct Page {
    id: String,
    rev: String,
    body: String,
    #[entity(version)]
    version: u64,
}

#[tokio::test]
async fn a_history_snapshot_is_never_read_as_the_entity() {
    let t = table(&[Page::MODEL]).await;
    let page = Page {
        id: "a".into(),
        rev: "r".into(),
        body: "first".into(),
        version: 0,
    };
    t.client.create(&page).await.unwrap();
    // The key of version 1's snapshot, as the entity's own key: no item
    // of the entity can have it (`history_keys`).
    let snapshot = Page::key("a", "r@0000000001");
    let refused = |read: &Result<_, Error>| {
        matches!(
            read,
            Err(Error::Validation(ValidationError::SnapshotKey { .. }))
        )
    };
    assert!(refused(&t.client.get(snapshot.clone()).await.map(|_| ())));
    let f = Page::fields();
    let projected = t.client.get(snapshot).project([f.body.name()]).await;
    assert!(refused(&projected.map(|_| ())));
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "pg", name = "Note", version = 1)]
#[pk(id)]
struct NoteV1 {
    id: String,
    text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "pg", name = "Note", version = 2, upgrade_from = NoteV1)]
#[pk(id)]
struct Note {
    id: String,
    text: String,
    words: u32,
}

impl From<NoteV1> for Note {
    fn from(old: NoteV1) -> Self {
        let words = old.text.split_whitespace().count() as u32;
        Note {
            id: old.id,
            text: old.text,
            words,
        }
    }
}

#[tokio::test]
async fn an_older_version_is_upgraded_then_projected() {
    let t = table(&[Note::MODEL]).await;
    let old = NoteV1 {
        id: "n".into(),
        text: "three small words".into(),
    };
    t.client.put(&old).await.unwrap();
    let f = Note::fields();
    let projected = t.client.get(Note::key("n")).project([f.words.name()]);
    let projected = projected.await.unwrap().expect("the note");
    // `words` is not stored: only the upgrade gives it.
    assert_eq!(projected.get(f.words).unwrap(), 3);
    // Only what was asked for is handed back.
    assert!(projected.get(f.text).is_err());
    // An item of the current version is projected as stored.
    let current = Note {
        id: "m".into(),
        text: "one".into(),
        words: 7,
    };
    t.client.put(&current).await.unwrap();
    let projected = t.client.get(Note::key("m")).project([f.words.name()]);
    assert_eq!(projected.await.unwrap().unwrap().get(f.words).unwrap(), 7);
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "pg", name = "Memo", version = 1)]
#[pk(id)]
struct MemoV1 {
    id: String,
    text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "pg", name = "Memo", version = 2)]
#[pk(id)]
struct Memo {
    id: String,
    text: String,
}

#[tokio::test]
async fn an_older_version_without_upgrade_is_refused_as_a_get_refuses_it() {
    let t = table(&[Memo::MODEL]).await;
    let old = MemoV1 {
        id: "m".into(),
        text: "v1".into(),
    };
    t.client.put(&old).await.unwrap();
    let version =
        |read: &Result<_, Error>| matches!(read, Err(Error::Decode(DecodeError::Version { .. })));
    assert!(version(&t.client.get(Memo::key("m")).await.map(|_| ())));
    let f = Memo::fields();
    let projected = t.client.get(Memo::key("m")).project([f.text.name()]);
    let projected = projected.await.map(|_| ());
    assert!(version(&projected), "{projected:?}");
}
