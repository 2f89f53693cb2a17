//! Single-item reads and writes against a server: `get` (consistent,
//! projected), `put`, `create`, `upsert`, `delete` and `remove`, asserting on
//! the stored item with the raw SDK.

mod common;

use common::{put_raw, s, stored, stored_entity, task};
use entity_client::{Entity, Error};
use entity_tests::harness::table;
use entity_tests::{Status, Task, UserId, UserProfile};

#[tokio::test]
async fn get_reads_what_put_stored_and_none_for_a_missing_key() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let task = task("t1", "p1", "e1", 3, Status::Open);
    client.put(&task).await.unwrap();

    // What is stored is exactly the entity's item.
    assert_eq!(
        stored(client, &Task::key("t1")).await.unwrap(),
        task.to_item().unwrap()
    );
    assert_eq!(
        client.get(Task::key("t1")).await.unwrap(),
        Some(task.clone())
    );
    assert_eq!(
        client
            .get(Task::key("t1"))
            .consistent_read(true)
            .await
            .unwrap(),
        Some(task)
    );
    assert_eq!(client.get(Task::key("nope")).await.unwrap(), None);
    assert_eq!(
        client
            .get(Task::key("nope"))
            .consistent_read(true)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn get_projects_only_the_named_attributes() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let task = task("t1", "p1", "e1", 7, Status::Done);
    client.put(&task).await.unwrap();

    let f = Task::fields();
    let projection = client
        .get(Task::key("t1"))
        .consistent_read(true)
        .project([f.title.name(), f.priority.name(), f.estimate.name()])
        .await
        .unwrap()
        .expect("the item exists");
    assert_eq!(projection.get(f.title).unwrap(), task.title);
    assert_eq!(projection.get(f.priority).unwrap(), 7);
    assert_eq!(projection.get(f.estimate).unwrap(), Some(1.5));
    // A required field that was not projected is an error naming it.
    let err = projection.get(f.status).unwrap_err();
    assert_eq!((err.entity(), err.attribute()), ("Task", "status"));
    let raw = projection.into_item();
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["estimate", "priority", "title"]);

    // Reserved words (`status`) and serde fields are projected too.
    let projection = client
        .get(Task::key("t1"))
        .project([f.status.name(), f.checklist.name(), f.tags.name()])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(projection.get(f.status).unwrap(), Status::Done);
    assert_eq!(projection.get(f.tags).unwrap(), task.tags);
    assert_eq!(
        projection.into_item()["checklist"],
        task.to_item().unwrap()["checklist"]
    );

    assert!(client
        .get(Task::key("missing"))
        .project([f.title.name()])
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn put_replaces_the_whole_item_and_can_return_the_old_one() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let first = task("t1", "p1", "e1", 1, Status::Open);
    // No item before: return_old gives None.
    assert_eq!(client.put(&first).return_old().await.unwrap(), None);

    let mut second = first.clone();
    second.title = "replaced".into();
    second.estimate = None;
    second.tags.clear();
    second.priority = 9;
    let old = client.put(&second).return_old().await.unwrap();
    assert_eq!(old, Some(first));

    // Replaced, not merged: the attributes the new value omits are gone.
    let item = stored(client, &Task::key("t1")).await.unwrap();
    assert!(!item.contains_key("estimate"));
    assert!(!item.contains_key("tags"));
    assert_eq!(item["title"], s("replaced"));
    assert_eq!(item["gsi1sk"], s("$myapp#v1#task#priority_009#status_Open"));
    assert_eq!(item, second.to_item().unwrap());
}

#[tokio::test]
async fn put_with_a_condition_writes_only_when_it_holds() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let f = Task::fields();
    let original = task("t1", "p1", "e1", 3, Status::Open);
    client.put(&original).await.unwrap();

    let mut changed = original.clone();
    changed.title = "changed".into();
    let err = client
        .put(&changed)
        .condition(f.priority.gt(5u8))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::ConditionFailed { entity: "Task", .. }),
        "{err:?}"
    );
    assert!(err.is_condition_failed());
    let old = Task::from_item(err.old_item().expect("the old item").clone()).unwrap();
    assert_eq!(old, original);
    assert_eq!(
        stored_entity(client, &Task::key("t1")).await.unwrap(),
        original
    );

    client
        .put(&changed)
        .condition(f.priority.lte(3u8))
        .await
        .unwrap();
    assert_eq!(
        stored_entity(client, &Task::key("t1")).await.unwrap(),
        changed
    );
}

#[tokio::test]
async fn create_writes_once_then_fails_with_the_existing_item() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let original = task("t1", "p1", "e1", 3, Status::Open);
    client.create(&original).await.unwrap();
    assert_eq!(
        stored_entity(client, &Task::key("t1")).await.unwrap(),
        original
    );

    let mut other = original.clone();
    other.title = "second create".into();
    let err = client.create(&other).await.unwrap_err();
    let Error::ConditionFailed {
        entity, old, why, ..
    } = &err
    else {
        panic!("expected ConditionFailed, got {err:?}")
    };
    assert_eq!(*entity, "Task");
    assert_eq!(*why, entity_client::FailedCondition::Exists);
    assert_eq!(
        err.to_string(),
        "condition failed on a Task write, nothing was written: an item with this key exists (a create, or a rekey onto this key, writes only where no item is: `put` replaces one, `upsert` merges into it)"
    );
    let old = old.as_deref().expect("DynamoDB returns the existing item");
    assert_eq!(Task::from_item(old.clone()).unwrap(), original);
    assert!(std::error::Error::source(&err).is_some());
    // Nothing was written.
    assert_eq!(
        stored_entity(client, &Task::key("t1")).await.unwrap(),
        original
    );
}

#[tokio::test]
async fn upsert_creates_a_missing_item() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let task = task("t1", "p1", "e1", 4, Status::InProgress);
    client.upsert(&task).await.unwrap();
    // Every attribute the entity writes, keys and identity included.
    assert_eq!(
        stored(client, &Task::key("t1")).await.unwrap(),
        task.to_item().unwrap()
    );
}

#[tokio::test]
async fn upsert_keeps_attributes_the_entity_does_not_own() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let original = task("t1", "p1", "e1", 4, Status::InProgress);
    client.put(&original).await.unwrap();
    // Another writer adds an attribute this entity knows nothing about.
    client
        .sdk()
        .update_item()
        .table_name(client.table())
        .set_key(Some(Task::key("t1").to_item()))
        .update_expression("SET foreignNote = :v")
        .expression_attribute_values(":v", s("kept"))
        .send()
        .await
        .unwrap();

    let mut changed = original.clone();
    changed.title = "upserted".into();
    changed.estimate = None; // a `None` field is removed
    changed.priority = 8; // index keys are rewritten too
    changed.status = Status::Done;
    client.upsert(&changed).await.unwrap();

    let item = stored(client, &Task::key("t1")).await.unwrap();
    assert_eq!(item["foreignNote"], s("kept"));
    assert!(!item.contains_key("estimate"));
    assert_eq!(item["title"], s("upserted"));
    assert_eq!(item["gsi1sk"], s("$myapp#v1#task#priority_008#status_done"));
    assert_eq!(item["gsi2sk"], s("$myapp#v1#task#priority_008"));
    let mut expected = changed.to_item().unwrap();
    expected.insert("foreignNote".into(), s("kept"));
    assert_eq!(item, expected);
    assert_eq!(Task::from_item(item).unwrap(), changed);
}

#[tokio::test]
async fn upsert_with_a_failed_condition_writes_nothing() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let f = Task::fields();
    let original = task("t1", "p1", "e1", 4, Status::Open);
    client.put(&original).await.unwrap();
    let mut changed = original.clone();
    changed.title = "nope".into();
    let err = client
        .upsert(&changed)
        .condition(f.status.eq(Status::Done))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    assert_eq!(
        Task::from_item(err.old_item().unwrap().clone()).unwrap(),
        original
    );
    assert_eq!(
        stored_entity(client, &Task::key("t1")).await.unwrap(),
        original
    );
    client
        .upsert(&changed)
        .condition(f.status.eq(Status::Open))
        .await
        .unwrap();
    assert_eq!(
        stored_entity(client, &Task::key("t1")).await.unwrap(),
        changed
    );
}

#[tokio::test]
async fn delete_succeeds_with_or_without_an_item() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let original = task("t1", "p1", "e1", 4, Status::Open);
    client.put(&original).await.unwrap();

    assert_eq!(
        client.delete(Task::key("t1")).return_old().await.unwrap(),
        Some(original.clone())
    );
    assert_eq!(stored(client, &Task::key("t1")).await, None);
    // Deleting again is not an error, and returns nothing.
    client.delete(Task::key("t1")).await.unwrap();
    assert_eq!(
        client.delete(Task::key("t1")).return_old().await.unwrap(),
        None
    );

    // A conditional delete that does not hold keeps the item.
    client.put(&original).await.unwrap();
    let f = Task::fields();
    let err = client
        .delete(Task::key("t1"))
        .condition(f.status.eq(Status::Done))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    assert_eq!(
        Task::from_item(err.old_item().unwrap().clone()).unwrap(),
        original
    );
    assert!(stored(client, &Task::key("t1")).await.is_some());
    client
        .delete(Task::key("t1"))
        .condition(f.status.eq(Status::Open))
        .await
        .unwrap();
    assert_eq!(stored(client, &Task::key("t1")).await, None);
}

#[tokio::test]
async fn remove_fails_with_not_found_when_there_is_no_item() {
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let err = client.remove(Task::key("missing")).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Task" }), "{err:?}");
    assert!(!err.is_condition_failed());

    let original = task("t1", "p1", "e1", 4, Status::Open);
    client.put(&original).await.unwrap();
    assert_eq!(
        client.remove(Task::key("t1")).return_old().await.unwrap(),
        Some(original.clone())
    );
    assert_eq!(stored(client, &Task::key("t1")).await, None);
    let err = client.remove(Task::key("t1")).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");

    // On an existing item, a user condition that fails is a failed
    // condition, not "not found".
    client.put(&original).await.unwrap();
    let f = Task::fields();
    let err = client
        .remove(Task::key("t1"))
        .condition(f.priority.gt(100u8))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    assert!(stored(client, &Task::key("t1")).await.is_some());
}

#[tokio::test]
async fn formatted_keys_and_static_sort_keys_round_trip() {
    let t = table(&[UserProfile::MODEL]).await;
    let client = &t.client;
    let profile = UserProfile {
        user_id: UserId("123".into()),
        email: "a@example.test".into(),
        bio: None,
    };
    client.create(&profile).await.unwrap();
    let item = stored(client, &UserProfile::key(UserId("123".into())))
        .await
        .unwrap();
    assert_eq!(item["pk"], s("USER#123"));
    assert_eq!(item["sk"], s("PROFILE"));
    assert_eq!(item["gsi1pk"], s("user#email"));
    assert_eq!(item["gsi1sk"], s("a@example.test"));
    assert!(!item.contains_key("bio"));
    assert_eq!(
        client
            .get(UserProfile::key(UserId("123".into())))
            .await
            .unwrap(),
        Some(profile)
    );
}

#[tokio::test]
async fn items_of_another_entity_under_the_same_key_are_a_decode_error() {
    // Two entities whose keys can collide: reading one as the other is a
    // typed error, not a panic nor a wrong value.
    let t = table(&[Task::MODEL]).await;
    let client = &t.client;
    let mut item = task("t1", "p1", "e1", 1, Status::Open).to_item().unwrap();
    item.insert("__entity".into(), s("Employee"));
    put_raw(client, item).await;
    let err = client.get(Task::key("t1")).await.unwrap_err();
    let Error::Decode(decode) = &err else {
        panic!("expected a decode error, got {err:?}")
    };
    assert_eq!(decode.entity(), "Task");
    assert_eq!(decode.attribute(), "__entity");
}

/// A value stored to whole units: its conversion loses the fraction, so a
/// write's returned entity tells a copy of the caller's value from one
/// decoded from the stored item.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Whole(f64);

impl entity_client::ToAttribute for Whole {
    fn to_attribute(
        &self,
    ) -> Result<Option<aws_sdk_dynamodb::types::AttributeValue>, entity_client::AttributeError>
    {
        self.0.round().to_attribute()
    }
}

impl entity_client::FromAttribute for Whole {
    fn from_attribute(
        value: aws_sdk_dynamodb::types::AttributeValue,
    ) -> Result<Self, entity_client::AttributeError> {
        f64::from_attribute(value).map(Whole)
    }
}

/// Stored just as it converts, and `Clone`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "copy")]
#[pk(id)]
struct Copied {
    id: String,
    amount: Whole,
}

/// Stored just as it converts, not `Clone`.
#[derive(Entity, Debug, PartialEq)]
#[entity(schema = "copy")]
#[pk(id)]
struct Decoded {
    id: String,
    amount: Whole,
}

#[tokio::test]
async fn a_write_hands_back_a_clone_entity_as_written_and_decodes_any_other() {
    let t = table(&[Copied::MODEL]).await;
    let client = &t.client;
    let copied = Copied {
        id: "c".into(),
        amount: Whole(2.4),
    };
    let decoded = Decoded {
        id: "d".into(),
        amount: Whole(2.4),
    };
    // A `Clone` entity with nothing stamped comes back as the caller's
    // value; the item holds what its conversion wrote.
    assert_eq!(client.put(&copied).await.unwrap(), copied);
    assert_eq!(
        client
            .create(&Copied {
                id: "c2".into(),
                ..copied.clone()
            })
            .await
            .unwrap()
            .amount,
        Whole(2.4)
    );
    assert_eq!(client.upsert(&copied).await.unwrap(), copied);
    let stored_copy = client
        .get(Copied::key("c"))
        .consistent_read(true)
        .await
        .unwrap();
    assert_eq!(stored_copy.map(|c| c.amount), Some(Whole(2.0)));
    // Any other entity is decoded from the item written.
    assert_eq!(client.put(&decoded).await.unwrap().amount, Whole(2.0));
    assert_eq!(client.upsert(&decoded).await.unwrap().amount, Whole(2.0));
    let stored_decoded = client
        .get(Decoded::key("d"))
        .consistent_read(true)
        .await
        .unwrap();
    assert_eq!(stored_decoded.map(|d| d.amount), Some(Whole(2.0)));
}
