//! `#[entity(compress)]` on the embedded server: small values stay as they
//! are, large ones are stored as a framed LZ4 binary and read back; an item
//! over 400 KB raw is written when it fits compressed; items written before
//! compression was turned on still read; a corrupt header is a typed
//! error; and `Entity::item_size` is what the client's 400 KB check
//! counts; a projected get reads compressed fields as a whole get does.
//! (Compressed fields beside unique values, soft delete, history
//! and a tenant are rows of the composition matrix, `matrix.rs`.)

mod common;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use common::{put_raw, stored};
use entity_client::compress::{CompressionError, HEADER_LEN, MAGIC};
use entity_client::limits::{item_total, MAX_ITEM_BYTES};
use entity_client::{DecodeError, Entity, Error, ValidationError};
use entity_tests::harness::table;
use entity_tests::text::json_like;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "docs", name = "Doc")]
#[pk(id)]
#[sk()]
struct Doc {
    id: String,
    title: String,
    #[entity(compress)]
    body: String,
    #[entity(compress(min = 64))]
    attachment: Vec<u8>,
    #[entity(compress)]
    summary: Option<String>,
}

/// The same entity before `compress` was added to its fields: what older
/// items were written with.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "docs", name = "Doc")]
#[pk(id)]
#[sk()]
struct DocBefore {
    id: String,
    title: String,
    body: String,
    attachment: Vec<u8>,
    summary: Option<String>,
}

fn doc(id: &str, body: String) -> Doc {
    Doc {
        id: id.into(),
        title: format!("title of {id}"),
        body,
        attachment: Vec::new(),
        summary: None,
    }
}

fn binary(value: &AttributeValue) -> &[u8] {
    match value {
        AttributeValue::B(b) => b.as_ref(),
        other => panic!("not a binary: {other:?}"),
    }
}

#[tokio::test]
async fn small_values_stay_plain_and_large_ones_are_compressed() {
    let t = table(&[Doc::MODEL]).await;
    let c = &t.client;
    let small = Doc {
        attachment: vec![1, 2, 3],
        summary: Some("short".into()),
        ..doc("small", "a short body".into())
    };
    c.put(&small).await.unwrap();
    let raw = stored(c, &small.primary_key()).await.unwrap();
    assert_eq!(raw["body"], AttributeValue::S("a short body".into()));
    assert!(
        matches!(raw["attachment"], AttributeValue::L(_)),
        "as usual"
    );
    assert_eq!(c.get(small.primary_key()).await.unwrap(), Some(small));

    let text = json_like(200_000);
    let large = Doc {
        attachment: text.as_bytes().to_vec(),
        summary: Some(json_like(5_000)),
        ..doc("large", text.clone())
    };
    c.put(&large).await.unwrap();
    let raw = stored(c, &large.primary_key()).await.unwrap();
    for attribute in ["body", "attachment", "summary"] {
        let bytes = binary(&raw[attribute]);
        assert_eq!(&bytes[..3], &MAGIC, "{attribute}");
        assert_eq!(&bytes[3..5], &[1, 1], "{attribute}: version 1, LZ4");
    }
    let body = binary(&raw["body"]);
    assert_eq!(
        &body[5..9],
        &u32::try_from(text.len()).unwrap().to_le_bytes()
    );
    assert!(
        body.len() < text.len() / 3,
        "{} of {}",
        body.len(),
        text.len()
    );
    assert_eq!(c.get(large.primary_key()).await.unwrap(), Some(large));
}

#[tokio::test]
async fn an_item_over_400_kb_raw_is_written_when_it_fits_compressed() {
    let t = table(&[Doc::MODEL]).await;
    let c = &t.client;
    let big = doc("big", json_like(1_000_000));
    assert!(big.body.len() > MAX_ITEM_BYTES);
    let size = big.item_size().unwrap();
    assert!(
        size.total < MAX_ITEM_BYTES,
        "{} bytes compressed",
        size.total
    );
    assert_eq!(size.attributes[0].0, "body", "the largest attribute");
    c.put(&big).await.unwrap();
    assert_eq!(c.get(big.primary_key()).await.unwrap(), Some(big.clone()));

    // The same value uncompressed is refused before sending, the message
    // naming the largest attribute.
    let before = DocBefore {
        id: "big".into(),
        title: big.title.clone(),
        body: big.body.clone(),
        attachment: Vec::new(),
        summary: None,
    };
    match c.put(&before).await {
        Err(Error::Validation(ValidationError::ItemTooLarge { size, largest, .. })) => {
            assert!(size > MAX_ITEM_BYTES);
            assert_eq!(largest.0, "body");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn items_written_before_compression_was_turned_on_still_read() {
    let t = table(&[Doc::MODEL]).await;
    let c = &t.client;
    let old = DocBefore {
        id: "old".into(),
        title: "old".into(),
        body: json_like(50_000),
        attachment: b"some bytes of an older item".to_vec(),
        summary: Some(json_like(3_000)),
    };
    put_raw(c, old.to_item().unwrap()).await;
    let read = c.get(Doc::key("old")).await.unwrap().expect("read");
    assert_eq!(
        (read.body, read.attachment, read.summary),
        (old.body, old.attachment, old.summary)
    );
}

#[tokio::test]
async fn a_corrupt_or_unknown_header_is_a_typed_error() {
    let t = table(&[Doc::MODEL]).await;
    let c = &t.client;
    let good = doc("x", json_like(10_000));
    let item = good.to_item().unwrap();
    let framed = binary(&item["body"]).to_vec();
    let cases: [(&str, Vec<u8>, Expected); 4] = [
        ("codec", with_byte(&framed, 4, 9), |e| {
            *e == CompressionError::UnknownCodec(9)
        }),
        ("version", with_byte(&framed, 3, 2), |e| {
            *e == CompressionError::UnknownVersion(2)
        }),
        ("truncated", framed[..HEADER_LEN - 2].to_vec(), |e| {
            matches!(e, CompressionError::Truncated { .. })
        }),
        ("payload", framed[..framed.len() / 2].to_vec(), |e| {
            matches!(e, CompressionError::Corrupt(_))
        }),
    ];
    for (what, bytes, expected) in cases {
        let mut item = item.clone();
        item.insert("body".into(), AttributeValue::B(Blob::new(bytes)));
        put_raw(c, item).await;
        match c.get(good.primary_key()).await {
            Err(Error::Decode(DecodeError::Compressed {
                entity: "Doc",
                attribute: "body",
                source,
            })) => assert!(expected(&source), "{what}: {source:?}"),
            other => panic!("{what}: {other:?}"),
        }
    }
}

/// What a case expects of the error.
type Expected = fn(&CompressionError) -> bool;

fn with_byte(bytes: &[u8], at: usize, value: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] = value;
    out
}

#[test]
fn item_size_is_what_the_client_checks() {
    let small = doc("s", "hello".into());
    let size = small.item_size().unwrap();
    let item = small.to_item().unwrap();
    assert_eq!(size.total, item_total(&item));
    // `body` (4) + "hello" (5); `title` (5) + "title of s" (10); an empty
    // list (3); no `summary`.
    assert_eq!(size.of("body"), Some(9));
    assert_eq!(size.of("title"), Some(15));
    assert_eq!(size.of("attachment"), Some(10 + 3));
    assert_eq!(size.of("summary"), None);
    assert_eq!(
        size.attributes.iter().map(|a| a.1).sum::<usize>(),
        size.total
    );

    let large = doc("l", json_like(100_000));
    let item = large.to_item().unwrap();
    let body = binary(&item["body"]).len();
    assert_eq!(large.item_size().unwrap().of("body"), Some(4 + body));
}

#[tokio::test]
async fn an_update_stores_a_compressed_field_as_a_put_does() {
    let t = table(&[Doc::MODEL]).await;
    let c = &t.client;
    let small = doc("u1", "short".into());
    c.put(&small).await.unwrap();
    let f = Doc::fields();
    let text = json_like(50_000);
    let bytes = json_like(2_000).into_bytes();
    c.update(small.primary_key())
        .changes(
            entity_client::expr::Update::new()
                .set(f.body, text.as_str())
                .set(f.attachment, bytes.clone())
                .set(f.summary, Some("short summary".to_owned())),
        )
        .await
        .unwrap();
    let raw = stored(c, &small.primary_key()).await.unwrap();
    for attribute in ["body", "attachment"] {
        let stored = binary(&raw[attribute]);
        assert_eq!(
            &stored[..5],
            &[MAGIC[0], MAGIC[1], MAGIC[2], 1, 1],
            "{attribute}"
        );
    }
    assert!(binary(&raw["body"]).len() < text.len() / 3);
    // Under the threshold: stored as usual.
    assert_eq!(raw["summary"], AttributeValue::S("short summary".into()));
    let read = c.get(small.primary_key()).await.unwrap().unwrap();
    assert_eq!((read.body, read.attachment), (text, bytes));
    // A shrinking update stores it plain again.
    c.update(small.primary_key())
        .changes(entity_client::expr::Update::new().set(f.body, "short again"))
        .await
        .unwrap();
    let raw = stored(c, &small.primary_key()).await.unwrap();
    assert_eq!(raw["body"], AttributeValue::S("short again".into()));
}

/// A projected get reads a compressed field as a whole get does, whether
/// it was stored compressed or not, and for every type a field can
/// compress (text, bytes, optional text).
#[tokio::test]
async fn a_projected_get_reads_compressed_fields() {
    let t = table(&[Doc::MODEL]).await;
    let c = &t.client;
    let f = Doc::fields();
    let text = json_like(20_000);
    let large = Doc {
        attachment: text.as_bytes().to_vec(),
        summary: Some(json_like(5_000)),
        ..doc("large", text.clone())
    };
    let small = Doc {
        attachment: vec![7, 8, 9],
        summary: Some("short".into()),
        ..doc("small", "a short body".into())
    };
    for written in [&large, &small] {
        c.put(written).await.unwrap();
        let names = [f.body.name(), f.attachment.name(), f.summary.name()];
        let read = c
            .get(written.primary_key())
            .project(names)
            .await
            .unwrap()
            .expect("the item");
        assert_eq!(read.get(f.body).unwrap(), written.body, "{}", written.id);
        assert_eq!(read.get(f.attachment).unwrap(), written.attachment);
        assert_eq!(read.get(f.summary).unwrap(), written.summary);
        assert_eq!(read.get(f.title), Err(missing("title")), "not projected");
    }
    let raw = stored(c, &large.primary_key()).await.unwrap();
    assert_eq!(&binary(&raw["body"])[..3], &MAGIC, "stored compressed");

    // A compressed value that is not what the field holds is refused,
    // naming the field.
    let mut corrupt = raw.clone();
    let mut bytes = binary(&raw["summary"]).to_vec();
    bytes[3] = 9;
    corrupt.insert("summary".into(), AttributeValue::B(Blob::new(bytes)));
    put_raw(c, corrupt).await;
    let read = c
        .get(large.primary_key())
        .project([f.summary.name()])
        .await
        .unwrap()
        .expect("the item");
    assert!(
        matches!(
            read.get(f.summary),
            Err(DecodeError::Compressed {
                attribute: "summary",
                source: CompressionError::UnknownVersion(9),
                ..
            })
        ),
        "{:?}",
        read.get(f.summary)
    );
}

fn missing(attribute: &'static str) -> DecodeError {
    DecodeError::Attribute {
        entity: "Doc",
        attribute,
        source: entity_client::AttributeError::Missing,
    }
}
