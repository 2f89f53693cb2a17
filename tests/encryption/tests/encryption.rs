//! `#[entity(encrypt)]` through the AWS Database Encryption SDK, on the
//! embedded server or `ENTITY_TEST_ENDPOINT` (DynamoDB Local in CI): what
//! is stored (ciphertext and the SDK's signature attributes), items read
//! back through every read, interoperation with the SDK's own item
//! encryptor both ways, a tampered item and a wrong key as typed errors,
//! the features an encrypted entity composes with (plain-field updates,
//! version, unique values, soft delete, history, compression, batches,
//! transactions), and what is refused.

use aws_sdk_dynamodb::types::AttributeValue;
use entity_client::encryption::aws_db_esdk::item_encryptor::client as item_encryptor;
use entity_client::encryption::Encryption;
use entity_client::expr::Update;
use entity_client::{Client, Entity, Error, Item, ValidationError};
use entity_tests::harness::{table, TestTable};

/// A patient record: `diagnosis` encrypted, `notes` compressed then
/// encrypted; plain fields beside them, a unique email, a version, soft
/// delete and history.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "clinic", unique(email), soft_delete, history)]
#[pk(patient_id)]
#[sk()]
#[index(by_ward(gsi = "gsi1", pk(ward), sk(patient_id)))]
struct Patient {
    patient_id: String,
    ward: String,
    name: String,
    email: String,
    #[entity(encrypt)]
    diagnosis: String,
    #[entity(encrypt, compress)]
    notes: Option<String>,
    /// Stored plain, signed with the item.
    #[entity(sign)]
    insurer: String,
    #[entity(version)]
    version: u64,
}

fn patient(id: &str, diagnosis: &str) -> Patient {
    Patient {
        patient_id: id.into(),
        ward: "w1".into(),
        name: format!("name {id}"),
        email: format!("{id}@example.com"),
        diagnosis: diagnosis.into(),
        notes: Some(format!("notes on {id}: ").repeat(200)),
        insurer: "acme".into(),
        version: 0,
    }
}

const KEY: [u8; 32] = [42; 32];

async fn encryption() -> Encryption {
    Encryption::raw_aes("clinic", "key-1", KEY).await.unwrap()
}

/// A table, and an encrypting client on it.
async fn encrypted() -> (TestTable, Client, Encryption) {
    let t = table(&[Patient::MODEL]).await;
    let encryption = encryption().await;
    let client = t
        .client
        .with_encryption(&encryption, &[Patient::MODEL])
        .unwrap();
    (t, client, encryption)
}

/// The item as stored, read with the plain SDK.
async fn raw(t: &TestTable, id: &str) -> Item {
    let key = Patient::key(id).to_item();
    let out = t
        .client
        .sdk()
        .get_item()
        .table_name(t.client.table())
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item.expect("stored")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encrypted_fields_are_stored_as_ciphertext_and_read_back_everywhere() {
    let (t, client, _) = encrypted().await;
    let ana = client.create(&patient("p1", "influenza")).await.unwrap();
    let stored = raw(&t, "p1").await;
    // Ciphertext, not the value; the plain fields as they are; the SDK's
    // header and footer beside them.
    assert!(
        matches!(&stored["diagnosis"], AttributeValue::B(b) if !String::from_utf8_lossy(b.as_ref()).contains("influenza"))
    );
    assert_eq!(
        stored["insurer"],
        AttributeValue::S("acme".into()),
        "signed, not encrypted"
    );
    assert!(matches!(stored["notes"], AttributeValue::B(_)));
    assert_eq!(stored["name"], AttributeValue::S("name p1".into()));
    assert!(stored.contains_key("aws_dbe_head") && stored.contains_key("aws_dbe_foot"));

    // Every read decrypts.
    assert_eq!(
        client.get(Patient::key("p1")).await.unwrap(),
        Some(ana.clone())
    );
    let listed = client.query(Patient::by_ward("w1")).all().await.unwrap();
    assert_eq!(listed, std::slice::from_ref(&ana));
    let scanned = client.scan::<Patient>().all().await.unwrap();
    assert_eq!(scanned, std::slice::from_ref(&ana));
    let batch = client.batch_get([Patient::key("p1")]).await.unwrap();
    assert_eq!(batch.items, std::slice::from_ref(&ana));
    let by_email = client
        .get_unique(Patient::by_email("p1@example.com"))
        .await
        .unwrap();
    assert_eq!(by_email, Some(ana.clone()));
    // A client without encryption reads ciphertext it cannot decode.
    assert!(t.client.get(Patient::key("p1")).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_encrypted_entity_composes_with_the_other_features() {
    let (_t, client, _) = encrypted().await;
    let ana = client.create(&patient("p1", "influenza")).await.unwrap();
    // A plain field's update, and the version it bumps.
    client
        .update(Patient::key("p1"))
        .changes(Update::new().set(Patient::fields().name, "Ana"))
        .await
        .unwrap();
    let read = client.get(Patient::key("p1")).await.unwrap().unwrap();
    assert_eq!(
        (read.name.as_str(), read.diagnosis.as_str()),
        ("Ana", "influenza")
    );
    assert_eq!(read.version, ana.version + 1);
    // A whole-item write changes the encrypted field; upsert is a put.
    let changed = client
        .put(&Patient {
            diagnosis: "recovered".into(),
            ..read.clone()
        })
        .await
        .unwrap();
    let upserted = client
        .upsert(&Patient {
            diagnosis: "discharged".into(),
            ..changed
        })
        .await
        .unwrap();
    assert_eq!(upserted.diagnosis, "discharged");
    // History snapshots are encrypted items too, and read back.
    let history = client.history(Patient::key("p1")).all().await.unwrap();
    assert!(history.len() >= 3, "{history:?}");
    assert_eq!(history[0].diagnosis, "discharged");
    // Soft delete and restore: updates of attributes the SDK leaves alone.
    client.delete(Patient::key("p1")).await.unwrap();
    assert_eq!(client.get(Patient::key("p1")).await.unwrap(), None);
    let restored = client.restore(Patient::key("p1")).await.unwrap();
    assert_eq!(restored.diagnosis, "discharged");
    // The unique value stays held.
    let err = client.create(&patient("p2", "x").clone()).await;
    assert!(err.is_ok());
    let taken = client
        .create(&Patient {
            email: "p1@example.com".into(),
            ..patient("p3", "y")
        })
        .await
        .unwrap_err();
    assert!(matches!(taken, Error::UniqueViolation { .. }), "{taken:?}");
    // Batches, transactions and a key move.
    let many: Vec<Patient> = (10..40)
        .map(|i| Patient {
            version: 1,
            ..patient(&format!("b{i}"), "batch")
        })
        .collect();
    let keys: Vec<_> = many.iter().map(|p| p.primary_key()).collect();
    client
        .transact_write()
        .create(&patient("t1", "tx"))
        .await
        .unwrap();
    assert_eq!(
        client
            .get(Patient::key("t1"))
            .await
            .unwrap()
            .unwrap()
            .diagnosis,
        "tx"
    );
    for p in &many {
        client.create(p).await.unwrap();
    }
    let read = client.batch_get(keys).await.unwrap();
    assert_eq!(read.items.len(), 30);
    assert!(read.items.iter().all(|p| p.diagnosis == "batch"));
    let t1 = client.get(Patient::key("t1")).await.unwrap().unwrap();
    let moved = client
        .rekey(
            Patient::key("t1"),
            &Patient {
                patient_id: "t2".into(),
                ..t1
            },
        )
        .await
        .unwrap();
    assert_eq!(moved.diagnosis, "tx");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_interoperate_with_the_sdks_own_item_encryptor() {
    let (t, client, encryption) = encrypted().await;
    let config = encryption
        .item_encryptor_config(t.client.table(), &[Patient::MODEL])
        .unwrap();
    let encryptor = item_encryptor::Client::from_conf(config).unwrap();

    // Written here, decrypted by the SDK.
    let ana = client.create(&patient("p1", "influenza")).await.unwrap();
    let decrypted = encryptor
        .decrypt_item()
        .encrypted_item(raw(&t, "p1").await)
        .send()
        .await
        .unwrap()
        .plaintext_item
        .unwrap();
    assert_eq!(
        decrypted["diagnosis"],
        AttributeValue::S("influenza".into())
    );
    assert_eq!(Patient::from_item(decrypted).unwrap(), ana);

    // Encrypted by the SDK, read here.
    let ben = Patient {
        version: 1,
        ..patient("p9", "measles")
    };
    let encrypted_item = encryptor
        .encrypt_item()
        .plaintext_item(ben.to_item().unwrap())
        .send()
        .await
        .unwrap()
        .encrypted_item
        .unwrap();
    t.client
        .sdk()
        .put_item()
        .table_name(t.client.table())
        .set_item(Some(encrypted_item))
        .send()
        .await
        .unwrap();
    assert_eq!(client.get(Patient::key("p9")).await.unwrap(), Some(ben));
}

/// Writes `item` as it is, with the plain SDK.
async fn put_raw(t: &TestTable, item: Item) {
    t.client
        .sdk()
        .put_item()
        .table_name(t.client.table())
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_item_or_a_wrong_key_is_a_typed_error() {
    let (t, client, _) = encrypted().await;
    client.create(&patient("p1", "influenza")).await.unwrap();
    let stored = raw(&t, "p1").await;

    // One byte of the ciphertext changed.
    let mut tampered = stored.clone();
    let AttributeValue::B(bytes) = &stored["diagnosis"] else {
        panic!()
    };
    let mut bytes = bytes.as_ref().to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    tampered.insert("diagnosis".into(), AttributeValue::B(bytes.into()));
    put_raw(&t, tampered).await;
    let err = client.get(Patient::key("p1")).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err:?}");

    // A signed attribute (the sort key) swapped in from another item.
    put_raw(&t, stored.clone()).await;
    assert!(client.get(Patient::key("p1")).await.unwrap().is_some());
    let mut moved = stored.clone();
    moved.insert("pk".into(), AttributeValue::S(Patient::key("p5").pk));
    put_raw(&t, moved).await;
    let err = client.get(Patient::key("p5")).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err:?}");

    // A signed plain field changed: refused; a field left alone: read.
    put_raw(&t, stored.clone()).await;
    let mut resigned = stored.clone();
    resigned.insert("insurer".into(), AttributeValue::S("other".into()));
    put_raw(&t, resigned).await;
    let err = client.get(Patient::key("p1")).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err:?}");
    let mut renamed = stored.clone();
    renamed.insert("name".into(), AttributeValue::S("changed".into()));
    put_raw(&t, renamed).await;
    let read = client.get(Patient::key("p1")).await.unwrap().unwrap();
    assert_eq!(read.name, "changed");
    put_raw(&t, stored.clone()).await;

    // The signature stripped: a plain-text item, refused by default.
    let mut plain = Patient {
        version: 1,
        ..patient("p6", "x")
    }
    .to_item()
    .unwrap();
    plain.remove("aws_dbe_head");
    put_raw(&t, plain).await;
    let err = client.get(Patient::key("p6")).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err:?}");
    let lenient = t
        .client
        .with_encryption(
            &encryption().await.allow_plaintext_reads(true),
            &[Patient::MODEL],
        )
        .unwrap();
    assert_eq!(
        lenient
            .get(Patient::key("p6"))
            .await
            .unwrap()
            .unwrap()
            .diagnosis,
        "x"
    );

    // Items written with the HMAC-only suite read with the default one,
    // and the other way round.
    let symmetric = t
        .client
        .with_encryption(
            &encryption().await.algorithm_suite(
                entity_client::encryption::aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384,
            ),
            &[Patient::MODEL],
        )
        .unwrap();
    symmetric.create(&patient("s1", "hmac only")).await.unwrap();
    assert_eq!(
        client
            .get(Patient::key("s1"))
            .await
            .unwrap()
            .unwrap()
            .diagnosis,
        "hmac only"
    );
    assert_eq!(
        symmetric
            .get(Patient::key("p1"))
            .await
            .unwrap()
            .unwrap()
            .diagnosis,
        "influenza"
    );

    // Another key cannot decrypt.
    let other = Encryption::raw_aes("clinic", "key-1", [7; 32])
        .await
        .unwrap();
    let wrong = t.client.with_encryption(&other, &[Patient::MODEL]).unwrap();
    let err = wrong.get(Patient::key("p1")).await.unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err:?}");
}

/// An entity that stores `diagnosis` plain, in the same table.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "clinic")]
#[pk(visit_id)]
#[sk()]
struct Visit {
    visit_id: String,
    diagnosis: String,
}

/// An entity with a projected index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "clinic")]
#[pk(room_id)]
#[sk()]
#[index(by_floor(gsi = "gsi1", pk(floor), projection = keys_only))]
struct Room {
    room_id: String,
    floor: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_encryption_refuses_before_sending() {
    let t = table(&[Patient::MODEL]).await;
    // A client that does not encrypt writes no encrypted entity.
    let err = t.client.create(&patient("p1", "x")).await.unwrap_err();
    assert!(
        matches!(err, Error::EncryptionNotConfigured { entity: "Patient" }),
        "{err:?}"
    );
    assert!(
        t.client.scan::<Patient>().all().await.unwrap().is_empty(),
        "nothing written"
    );

    let encryption = encryption().await;
    // One attribute encrypted by one entity and plain in another.
    let err = t
        .client
        .with_encryption(&encryption, &[Patient::MODEL, Visit::MODEL])
        .unwrap_err();
    assert!(
        matches!(&err, Error::Validation(ValidationError::TableDesign(m)) if m.contains("`diagnosis`")),
        "{err:?}"
    );
    // A projected index holds no signature.
    let err = t
        .client
        .with_encryption(&encryption, &[Patient::MODEL, Room::MODEL])
        .unwrap_err();
    assert!(err.to_string().contains("KEYS_ONLY"), "{err}");
}

/// A tenant entity with an encrypted field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "clinic", tenant = org)]
#[pk(org, record_id)]
#[sk()]
struct Record {
    org: String,
    record_id: String,
    #[entity(encrypt)]
    body: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_client_of_an_encrypting_client_encrypts_within_its_tenant() {
    let t = table(&[Record::MODEL]).await;
    let encryption = encryption().await;
    let client = t
        .client
        .with_encryption(&encryption, &[Record::MODEL])
        .unwrap();
    let acme = client.tenant("acme");
    let record = Record {
        org: "acme".into(),
        record_id: "r1".into(),
        body: "secret".into(),
    };
    acme.create(&record).await.unwrap();
    let key = Record::key("acme", "r1").to_item();
    let stored = t
        .client
        .sdk()
        .get_item()
        .table_name(t.client.table())
        .set_key(Some(key))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert!(matches!(stored["body"], AttributeValue::B(_)), "ciphertext");
    assert_eq!(
        acme.get(Record::tenant_key("r1")).await.unwrap(),
        Some(record.clone())
    );
    // Another tenant neither reads nor writes it.
    let globex = client.tenant("globex");
    assert_eq!(globex.get(Record::tenant_key("r1")).await.unwrap(), None);
    let err = globex.put(&record).await.unwrap_err();
    assert!(matches!(err, Error::TenantMismatch { .. }), "{err:?}");
    // A tenant client of a client that does not encrypt refuses the write.
    let err = t.client.tenant("acme").put(&record).await.unwrap_err();
    assert!(
        matches!(err, Error::EncryptionNotConfigured { .. }),
        "{err:?}"
    );
}
