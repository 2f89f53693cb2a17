//! DynamoDB Streams decoding (`entity_client::streams`): records built by
//! hand in both sources' types (aws-sdk-dynamodbstreams records, and Lambda
//! events parsed from the JSON Lambda delivers), and end to end: a table
//! with a stream, written through the client, its stream read back with the
//! streams SDK and decoded as each entity and as their collection union.

use aws_lambda_events::event::dynamodb::Event as LambdaEvent;
use aws_sdk_dynamodb::types::{AttributeValue, StreamViewType};
use aws_sdk_dynamodbstreams::primitives::Blob;
use aws_sdk_dynamodbstreams::types::{
    AttributeValue as StreamValue, OperationType, Record, StreamRecord as StreamImages,
};
use entity_client::streams::{
    self, Change, Decoder, EventName, Image, RecordImages, StreamError, StreamReader, StreamRecord,
};
use entity_client::{Collection, Entity, Error, Item};
use entity_tests::harness;
use std::collections::HashMap;

/// An account: a unique email (a sentinel item per value) and history
/// (a snapshot item per version), in the `feed` collection on the table's
/// keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "feed", collection = "feed", unique(email), history(keep = 2))]
#[pk(owner)]
#[sk(account_id)]
struct Account {
    owner: String,
    account_id: String,
    email: String,
    name: String,
    #[entity(version)]
    version: u64,
}

/// A note, soft-deleted by `delete`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "feed", collection = "feed", soft_delete)]
#[pk(owner)]
#[sk(note_id)]
struct Note {
    owner: String,
    note_id: String,
    text: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(name = "feed", pk(owner: String))]
enum Feed {
    Accounts(Account),
    Notes(Note),
}

/// Another service's entity in the same table.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "other")]
#[pk(owner)]
#[sk(id)]
struct Stranger {
    owner: String,
    id: String,
}

fn account(version: u64, name: &str) -> Account {
    Account {
        owner: "o1".into(),
        account_id: "a1".into(),
        email: "ada@example.com".into(),
        name: name.into(),
        version,
    }
}

fn note() -> Note {
    Note {
        owner: "o1".into(),
        note_id: "n1".into(),
        text: "hello".into(),
    }
}

fn item<E: Entity>(entity: &E) -> Item {
    entity.to_item().expect("encodes")
}

/// A stored item with another identity, as the client writes sentinels
/// (`__unique`) and snapshots (`<Entity>#history`).
fn with_identity(mut item: Item, attribute: &str, identity: &str) -> Item {
    item.insert(attribute.into(), AttributeValue::S(identity.into()));
    item
}

// ---- decoding hand-built records ------------------------------------------

#[test]
fn changes_of_the_entity_only_in_order() {
    let v1 = account(1, "Ada");
    let v2 = account(2, "Ada L.");
    let sentinel = with_identity(item(&v1), "__entity", "__unique");
    let snapshot = with_identity(item(&v1), "__entity", "Account#history");
    let stranger = item(&Stranger {
        owner: "o1".into(),
        id: "s1".into(),
    });
    let records = [
        RecordImages::insert(item(&v1)),
        RecordImages::insert(sentinel.clone()),
        RecordImages::insert(snapshot.clone()),
        RecordImages::insert(stranger.clone()),
        RecordImages::modify(item(&v1), item(&v2)),
        RecordImages::modify(stranger.clone(), stranger),
        RecordImages::remove(snapshot),
        RecordImages::remove(item(&v2)),
        RecordImages::remove(sentinel),
    ];
    let changes: Vec<Change<Account>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .expect("decodes");
    assert_eq!(
        changes,
        [
            Change::Insert(v1.clone()),
            Change::Modify {
                old: v1,
                new: v2.clone()
            },
            Change::Remove(v2),
        ]
    );
}

#[test]
fn a_change_of_identity_is_an_insert_or_a_removal() {
    let stranger = item(&Stranger {
        owner: "o1".into(),
        id: "s1".into(),
    });
    let n = note();
    let became = RecordImages::modify(stranger.clone(), item(&n));
    let left = RecordImages::modify(item(&n), stranger);
    assert_eq!(
        streams::decode::<Note>(&became).unwrap(),
        Some(Change::Insert(n.clone()))
    );
    assert_eq!(
        streams::decode::<Note>(&left).unwrap(),
        Some(Change::Remove(n))
    );
}

#[test]
fn soft_deletes_and_restores_as_reads_see_them() {
    let n = note();
    let mut deleted = item(&n);
    deleted.insert(
        "__deleted_at".into(),
        AttributeValue::N("1700000000000".into()),
    );
    let records = [
        RecordImages::modify(item(&n), deleted.clone()), // delete
        RecordImages::modify(deleted.clone(), deleted.clone()), // a write while deleted
        RecordImages::modify(deleted.clone(), item(&n)), // restore
        RecordImages::remove(deleted.clone()),           // purge of a deleted item
    ];
    let hidden: Vec<Change<Note>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        hidden,
        [Change::Remove(n.clone()), Change::Insert(n.clone())]
    );

    let decoder = Decoder::<Note>::new().include_deleted(true);
    let shown: Vec<Change<Note>> = decoder
        .decode_all(&records)
        .collect::<Result<_, _>>()
        .unwrap();
    let modify = Change::Modify {
        old: n.clone(),
        new: n.clone(),
    };
    assert_eq!(
        shown,
        [modify.clone(), modify.clone(), modify, Change::Remove(n)]
    );
}

#[test]
fn a_union_decodes_each_member_and_skips_the_rest() {
    let a = account(1, "Ada");
    let n = note();
    let records = [
        RecordImages::insert(item(&a)),
        RecordImages::insert(item(&Stranger {
            owner: "o1".into(),
            id: "s1".into(),
        })),
        RecordImages::insert(with_identity(item(&a), "__entity", "__unique")),
        RecordImages::insert(item(&n)),
        RecordImages::remove(item(&a)),
    ];
    let changes: Vec<Change<Feed>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        changes,
        [
            Change::Insert(Feed::Accounts(a.clone())),
            Change::Insert(Feed::Notes(n)),
            Change::Remove(Feed::Accounts(a)),
        ]
    );
}

#[test]
fn a_record_without_the_image_its_event_needs_is_an_error() {
    let keys_only = RecordImages {
        event: EventName::Modify,
        sequence_number: Some("42".into()),
        old_image: None,
        new_image: None,
    };
    let error = streams::decode::<Note>(&keys_only).unwrap_err();
    assert!(
        matches!(
            &error,
            Error::Stream(StreamError::MissingImage {
                event: EventName::Modify,
                image: Image::Old,
                sequence_number: Some(n),
            }) if n == "42"
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("NEW_AND_OLD_IMAGES"), "{error}");

    // A NEW_IMAGE stream decodes its inserts, and refuses its removals.
    let insert = RecordImages::insert(item(&note()));
    assert!(streams::decode::<Note>(&insert).unwrap().is_some());
    let remove = RecordImages {
        old_image: None,
        ..RecordImages::remove(item(&note()))
    };
    assert!(matches!(
        streams::decode::<Note>(&remove),
        Err(Error::Stream(StreamError::MissingImage {
            image: Image::Old,
            ..
        }))
    ));
}

#[test]
fn an_undecodable_item_of_the_entity_is_an_error_in_its_place() {
    let mut broken = item(&note());
    broken.remove("text");
    let records = [
        RecordImages::insert(broken),
        RecordImages::insert(item(&note())),
    ];
    let results: Vec<_> = streams::decode_all::<Note, _>(&records).collect();
    assert!(matches!(results[0], Err(Error::Decode(_))), "{results:?}");
    assert_eq!(results[1].as_ref().unwrap(), &Change::Insert(note()));
}

/// One item of every attribute type, written once for both value types
/// (their variants share names): the streams SDK's and aws-sdk-dynamodb's.
macro_rules! every_type_item {
    ($v:ident) => {
        [
            ("s", $v::S("text".into())),
            ("n", $v::N("-12.5".into())),
            ("b", $v::B(Blob::new(vec![0, 1, 255]))),
            ("bool", $v::Bool(true)),
            ("null", $v::Null(true)),
            ("ss", $v::Ss(vec!["a".into(), "b".into()])),
            ("ns", $v::Ns(vec!["1".into(), "2.5".into()])),
            (
                "bs",
                $v::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2, 3])]),
            ),
            (
                "l",
                $v::L(vec![
                    $v::S("x".into()),
                    $v::M([("deep".to_owned(), $v::Bool(false))].into()),
                ]),
            ),
            (
                "m",
                $v::M(
                    [
                        ("inner".to_owned(), $v::L(vec![$v::N("3".into())])),
                        ("empty".to_owned(), $v::M(HashMap::new())),
                    ]
                    .into(),
                ),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    };
}

/// Every attribute type, as the streams SDK holds it and as aws-sdk-dynamodb
/// does.
fn every_type() -> (HashMap<String, StreamValue>, Item) {
    let stream: HashMap<String, StreamValue> = every_type_item!(StreamValue);
    let sdk: Item = every_type_item!(AttributeValue);
    (stream, sdk)
}

fn sdk_record(
    event: OperationType,
    old: Option<HashMap<String, StreamValue>>,
    new: Option<HashMap<String, StreamValue>>,
) -> Record {
    let images = StreamImages::builder()
        .sequence_number("100")
        .set_old_image(old)
        .set_new_image(new)
        .build();
    Record::builder().event_name(event).dynamodb(images).build()
}

/// An aws-sdk-dynamodb item in the streams SDK's type.
fn to_stream_item(item: &Item) -> HashMap<String, StreamValue> {
    fn value(v: &AttributeValue) -> StreamValue {
        match v {
            AttributeValue::S(s) => StreamValue::S(s.clone()),
            AttributeValue::N(n) => StreamValue::N(n.clone()),
            AttributeValue::Bool(b) => StreamValue::Bool(*b),
            AttributeValue::Ss(s) => StreamValue::Ss(s.clone()),
            AttributeValue::L(l) => StreamValue::L(l.iter().map(value).collect()),
            AttributeValue::M(m) => StreamValue::M(to_stream_item(m)),
            other => panic!("not used in these tests: {other:?}"),
        }
    }
    item.iter().map(|(k, v)| (k.clone(), value(v))).collect()
}

#[test]
fn sdk_records_convert_every_attribute_type() {
    let (stream, sdk) = every_type();
    let record = sdk_record(OperationType::Modify, Some(stream.clone()), Some(stream));
    let images = record.images().expect("converts");
    assert_eq!(images.event, EventName::Modify);
    assert_eq!(images.sequence_number.as_deref(), Some("100"));
    assert_eq!(images.old_image.as_ref(), Some(&sdk));
    assert_eq!(images.new_image.as_ref(), Some(&sdk));
}

#[test]
fn sdk_records_decode() {
    let v1 = account(1, "Ada");
    let v2 = account(2, "Ada L.");
    let stream = |a: &Account| Some(to_stream_item(&item(a)));
    let records = [
        sdk_record(OperationType::Insert, None, stream(&v1)),
        sdk_record(OperationType::Modify, stream(&v1), stream(&v2)),
        sdk_record(
            OperationType::Insert,
            None,
            Some(to_stream_item(&item(&Stranger {
                owner: "o1".into(),
                id: "s1".into(),
            }))),
        ),
        sdk_record(OperationType::Remove, stream(&v2), None),
    ];
    let changes: Vec<Change<Account>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        changes,
        [
            Change::Insert(v1.clone()),
            Change::Modify {
                old: v1,
                new: v2.clone()
            },
            Change::Remove(v2),
        ]
    );

    // A KEYS_ONLY record: keys, no images.
    let keys_only = Record::builder()
        .event_name(OperationType::Remove)
        .dynamodb(
            StreamImages::builder()
                .keys("pk", StreamValue::S("x".into()))
                .build(),
        )
        .build();
    assert!(matches!(
        streams::decode::<Account>(&keys_only),
        Err(Error::Stream(StreamError::MissingImage { .. }))
    ));
    let unknown = Record::builder()
        .event_name(OperationType::from("TRUNCATE"))
        .build();
    assert!(matches!(
        streams::decode::<Account>(&unknown),
        Err(Error::Stream(StreamError::UnknownEvent(name))) if name == "TRUNCATE"
    ));
}

/// A Lambda event as Lambda delivers it (DynamoDB JSON images, `B` in
/// base64): an insert of a job, a write of another service's item, an
/// update, a unique sentinel, and the job's removal by TTL.
const LAMBDA_EVENT: &str = r#"{
  "Records": [
    {
      "eventID": "c4ca4238a0b923820dcc509a6f75849b",
      "eventName": "INSERT",
      "eventVersion": "1.1",
      "eventSource": "aws:dynamodb",
      "awsRegion": "us-east-1",
      "dynamodb": {
        "ApproximateCreationDateTime": 1700000000,
        "Keys": {"pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"}},
        "NewImage": {
          "pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"},
          "__entity": {"S": "Job"}, "__version": {"N": "1"},
          "jobId": {"S": "j1"}, "attempts": {"N": "0"}, "tags": {"SS": ["etl", "nightly"]},
          "payload": {"B": "AAH/"}, "done": {"BOOL": false}
        },
        "SequenceNumber": "111",
        "SizeBytes": 120,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
      },
      "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/app/stream/2024-01-01T00:00:00.000"
    },
    {
      "eventID": "c81e728d9d4c2f636f067f89cc14862c",
      "eventName": "INSERT",
      "eventVersion": "1.1",
      "eventSource": "aws:dynamodb",
      "awsRegion": "us-east-1",
      "dynamodb": {
        "Keys": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}},
        "NewImage": {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}, "__entity": {"S": "Profile"},
                     "nested": {"M": {"list": {"L": [{"N": "1"}, {"NULL": true}, {"BS": ["AQ==", "Ag=="]}, {"NS": ["1", "2"]}]}}}},
        "SequenceNumber": "222",
        "SizeBytes": 40,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
      },
      "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/app/stream/2024-01-01T00:00:00.000"
    },
    {
      "eventID": "eccbc87e4b5ce2fe28308fd9f2a7baf3",
      "eventName": "MODIFY",
      "eventVersion": "1.1",
      "eventSource": "aws:dynamodb",
      "awsRegion": "us-east-1",
      "dynamodb": {
        "Keys": {"pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"}},
        "OldImage": {
          "pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"},
          "__entity": {"S": "Job"}, "__version": {"N": "1"},
          "jobId": {"S": "j1"}, "attempts": {"N": "0"}, "tags": {"SS": ["etl", "nightly"]},
          "payload": {"B": "AAH/"}, "done": {"BOOL": false}
        },
        "NewImage": {
          "pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"},
          "__entity": {"S": "Job"}, "__version": {"N": "1"},
          "jobId": {"S": "j1"}, "attempts": {"N": "1"}, "tags": {"SS": ["etl", "nightly"]},
          "payload": {"B": "AAH/"}, "done": {"BOOL": true}
        },
        "SequenceNumber": "333",
        "SizeBytes": 220,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
      },
      "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/app/stream/2024-01-01T00:00:00.000"
    },
    {
      "eventID": "a87ff679a2f3e71d9181a67b7542122c",
      "eventName": "INSERT",
      "eventVersion": "1.1",
      "eventSource": "aws:dynamodb",
      "awsRegion": "us-east-1",
      "dynamodb": {
        "Keys": {"pk": {"S": "__unique#lam#Job#name#x"}, "sk": {"S": "__unique"}},
        "NewImage": {"pk": {"S": "__unique#lam#Job#name#x"}, "sk": {"S": "__unique"}, "__entity": {"S": "__unique"}},
        "SequenceNumber": "444",
        "SizeBytes": 30,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
      },
      "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/app/stream/2024-01-01T00:00:00.000"
    },
    {
      "eventID": "e4da3b7fbbce2345d7772b0674a318d5",
      "eventName": "REMOVE",
      "eventVersion": "1.1",
      "eventSource": "aws:dynamodb",
      "awsRegion": "us-east-1",
      "dynamodb": {
        "Keys": {"pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"}},
        "OldImage": {
          "pk": {"S": "$lam#v1#job#jobid_j1"}, "sk": {"S": "$lam#v1#job"},
          "__entity": {"S": "Job"}, "__version": {"N": "1"},
          "jobId": {"S": "j1"}, "attempts": {"N": "1"}, "tags": {"SS": ["etl", "nightly"]},
          "payload": {"B": "AAH/"}, "done": {"BOOL": true}
        },
        "SequenceNumber": "555",
        "SizeBytes": 110,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
      },
      "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
      "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/app/stream/2024-01-01T00:00:00.000"
    }
  ]
}"#;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "lam", rename_all = "camelCase")]
#[pk(job_id)]
#[sk()]
struct Job {
    job_id: String,
    attempts: u32,
    tags: std::collections::BTreeSet<String>,
    payload: Blob,
    done: bool,
}

fn job(attempts: u32, done: bool) -> Job {
    Job {
        job_id: "j1".into(),
        attempts,
        tags: ["etl".to_owned(), "nightly".to_owned()].into(),
        payload: Blob::new(vec![0, 1, 255]),
        done,
    }
}

#[test]
fn lambda_events_decode() {
    let event: LambdaEvent = serde_json::from_str(LAMBDA_EVENT).expect("a Lambda event");
    // What the client writes is what the event holds.
    let first = event.records[0].images().unwrap();
    assert_eq!(first.new_image, Some(item(&job(0, false))));
    assert_eq!(first.old_image, None);
    assert_eq!(first.sequence_number.as_deref(), Some("111"));

    let changes: Vec<Change<Job>> = streams::decode_all(&event.records)
        .collect::<Result<_, _>>()
        .expect("decodes");
    assert_eq!(
        changes,
        [
            Change::Insert(job(0, false)),
            Change::Modify {
                old: job(0, false),
                new: job(1, true)
            },
            Change::Remove(job(1, true)),
        ]
    );
}

#[test]
fn lambda_events_convert_every_attribute_type() {
    let event: LambdaEvent = serde_json::from_str(LAMBDA_EVENT).expect("a Lambda event");
    let profile = event.records[1].images().unwrap().new_image.unwrap();
    let blob = |bytes: &[u8]| Blob::new(bytes.to_vec());
    let nested = AttributeValue::M(
        [(
            "list".to_owned(),
            AttributeValue::L(vec![
                AttributeValue::N("1".into()),
                AttributeValue::Null(true),
                AttributeValue::Bs(vec![blob(&[1]), blob(&[2])]),
                AttributeValue::Ns(vec!["1".into(), "2".into()]),
            ]),
        )]
        .into(),
    );
    assert_eq!(profile.get("nested"), Some(&nested));
    let job_image = event.records[0].images().unwrap().new_image.unwrap();
    assert_eq!(
        job_image.get("payload"),
        Some(&AttributeValue::B(blob(&[0, 1, 255])))
    );
    assert_eq!(job_image.get("done"), Some(&AttributeValue::Bool(false)));

    // A KEYS_ONLY delivery: Lambda leaves the images out.
    let keys_only = LAMBDA_EVENT.replace("\"OldImage\"", "\"Ignored\"");
    let event: LambdaEvent = serde_json::from_str(&keys_only).unwrap();
    assert!(matches!(
        streams::decode::<Job>(&event.records[4]),
        Err(Error::Stream(StreamError::MissingImage {
            event: EventName::Remove,
            image: Image::Old,
            ..
        }))
    ));
}

// ---- end to end ------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_stream_read_and_decoded() {
    let table = harness::connect().await;
    let client = &table.client;
    client
        .create_table(&[Account::MODEL, Note::MODEL, Stranger::MODEL])
        .stream(StreamViewType::NewAndOldImages)
        .await
        .expect("create table with a stream");

    let v1 = client.create(&account(0, "Ada")).await.expect("create");
    assert_eq!(v1, account(1, "Ada"));
    let stranger = Stranger {
        owner: "o1".into(),
        id: "s1".into(),
    };
    client.put(&stranger).await.expect("put stranger");
    client.create(&note()).await.expect("create note");
    let f = Account::fields();
    client
        .patch(Account::key("o1", "a1"))
        .set(f.name, "Ada L.")
        .await
        .expect("patch");
    let v2 = client.get(Account::key("o1", "a1")).await.expect("get");
    let v2 = v2.expect("stored");
    assert_eq!(v2, account(2, "Ada L."));
    client
        .delete(Note::key("o1", "n1"))
        .await
        .expect("soft delete");
    client
        .restore(Note::key("o1", "n1"))
        .await
        .expect("restore");
    client
        .delete(Account::key("o1", "a1"))
        .await
        .expect("delete");

    let streams_sdk = streams::local_streams_client(&table.endpoint());
    let reader = StreamReader::latest(client, streams_sdk)
        .await
        .expect("the table's stream");
    let records = reader.read_all().await.expect("read the stream");

    // The writes that decoding must skip are in the stream.
    let identities: Vec<String> = records
        .iter()
        .filter_map(|r| {
            let images = r.dynamodb()?;
            let image = images.new_image().or(images.old_image())?;
            match image.get("__entity")? {
                StreamValue::S(identity) => Some(identity.clone()),
                _ => None,
            }
        })
        .collect();
    for skipped in ["__unique", "Account#history", "Stranger"] {
        assert!(
            identities.iter().any(|i| i == skipped),
            "no {skipped} record in {identities:?}"
        );
    }

    let accounts: Vec<Change<Account>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .expect("decode accounts");
    assert_eq!(
        accounts,
        [
            Change::Insert(v1.clone()),
            Change::Modify {
                old: v1.clone(),
                new: v2.clone()
            },
            Change::Remove(v2.clone()),
        ]
    );

    let notes: Vec<Change<Note>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .expect("decode notes");
    assert_eq!(
        notes,
        [
            Change::Insert(note()),
            Change::Remove(note()), // soft delete
            Change::Insert(note()), // restore
        ]
    );

    let feed: Vec<Change<Feed>> = streams::decode_all(&records)
        .collect::<Result<_, _>>()
        .expect("decode the union");
    assert_eq!(
        feed,
        [
            Change::Insert(Feed::Accounts(v1.clone())),
            Change::Insert(Feed::Notes(note())),
            Change::Modify {
                old: Feed::Accounts(v1),
                new: Feed::Accounts(v2.clone())
            },
            Change::Remove(Feed::Notes(note())),
            Change::Insert(Feed::Notes(note())),
            Change::Remove(Feed::Accounts(v2)),
        ]
    );
}

#[tokio::test]
async fn a_table_without_a_stream_says_so() {
    let table = harness::table(&[Note::MODEL]).await;
    let streams_sdk = streams::local_streams_client(&table.endpoint());
    let error = StreamReader::latest(&table.client, streams_sdk)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Stream(StreamError::NoStream { table: name }) if name == table.client.table()),
        "{error:?}"
    );
}
