//! Entities past the runtime's tuple sizes (more than 16 fields, a key of
//! more than 12 composites) take the derive's field-by-field and
//! push-by-push paths; entities at the limits take the tuple ones. Both
//! write, read and parse the same way.

use entity_core::{Entity, PrimaryKey};

/// 18 fields, a 13-composite table partition key: every path spelled out.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "wide")]
#[pk(a, b, c, d, e, f, g, h, i, j, k, l, m)]
#[sk(n)]
#[index(by_o(gsi = "gsi1", pk(o), sk(p, q)))]
struct Wide {
    a: String,
    b: String,
    c: u8,
    d: u16,
    e: u32,
    f: u64,
    g: i8,
    h: i16,
    i: i32,
    j: i64,
    k: bool,
    l: String,
    m: String,
    n: i64,
    o: String,
    p: u32,
    q: String,
    note: Option<String>,
}

/// 16 fields, a 12-composite key: the largest tuples.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(schema = "wide")]
#[pk(a, b, c, d, e, f, g, h, i, j, k, l)]
#[sk()]
struct AtLimit {
    a: String,
    b: String,
    c: u8,
    d: u16,
    e: u32,
    f: u64,
    g: i8,
    h: i16,
    i: i32,
    j: i64,
    k: bool,
    l: String,
    m: String,
    n: i64,
    o: Option<u32>,
    p: Vec<String>,
}

fn wide() -> Wide {
    Wide {
        a: "a#1".into(),
        b: String::new(),
        c: 3,
        d: 4,
        e: 5,
        f: u64::MAX,
        g: -7,
        h: i16::MIN,
        i: -1,
        j: i64::MIN,
        k: true,
        l: "l".into(),
        m: "m%".into(),
        n: -42,
        o: "o".into(),
        p: 17,
        q: "q".into(),
        note: None,
    }
}

fn at_limit() -> AtLimit {
    AtLimit {
        a: "x#y".into(),
        b: "".into(),
        c: 0,
        d: u16::MAX,
        e: 9,
        f: 10,
        g: i8::MIN,
        h: 12,
        i: -13,
        j: 14,
        k: false,
        l: "l".into(),
        m: "m".into(),
        n: -1,
        o: Some(7),
        p: vec!["v".into()],
    }
}

#[test]
fn a_wide_entity_round_trips_through_its_item() {
    let entity = wide();
    let item = entity.to_item().unwrap();
    // 18 fields less the `None`, 4 keys, identity and version.
    assert_eq!(item.len(), 17 + 4 + 2);
    assert_eq!(Wide::from_item(item).unwrap(), entity);
}

#[test]
fn a_wide_key_composes_and_parses_back() {
    let w = wide();
    let pk = w.pk();
    let parsed = Wide::parse_pk(&pk).unwrap();
    assert_eq!(parsed.0, w.a);
    assert_eq!(parsed.5, u64::MAX);
    assert_eq!(parsed.9, i64::MIN);
    assert_eq!(parsed.12, w.m);
    assert!(Wide::is_pk(&pk));
    assert!(!Wide::is_pk(&format!("{pk}#extra")));
    let fields = Wide::key_fields(&w.primary_key());
    // The 13 partition composites and the sort key's one.
    assert_eq!(fields.len(), 14);
    assert_eq!(fields["a"].as_s().unwrap(), "a#1");
    assert_eq!(fields["n"].as_n().unwrap(), "-42");
    assert_eq!(
        Wide::by_o_sk_of(17u32, "q"),
        w.by_o_sk(),
        "the composer and the instance agree"
    );
}

#[test]
fn an_entity_at_the_tuple_limits_round_trips() {
    let entity = at_limit();
    let item = entity.to_item().unwrap();
    assert_eq!(item.len(), 16 + 2 + 2);
    assert_eq!(AtLimit::from_item(item).unwrap(), entity);
    let parsed = AtLimit::parse_pk(&entity.pk()).unwrap();
    assert_eq!(
        (parsed.0.as_str(), parsed.6, parsed.11.as_str()),
        ("x#y", i8::MIN, "l")
    );
    let key: PrimaryKey<AtLimit> = AtLimit::key(
        "x#y",
        "",
        0u8,
        u16::MAX,
        9u32,
        10u64,
        i8::MIN,
        12i16,
        -13i32,
        14i64,
        false,
        "l",
    );
    assert_eq!(key, entity.primary_key());
    assert_eq!(AtLimit::key_fields(&key).len(), 12);
}

#[test]
fn a_missing_field_is_named_on_both_paths() {
    let mut item = wide().to_item().unwrap();
    item.remove("q");
    let err = Wide::from_item(item).unwrap_err().to_string();
    assert!(err.contains("Wide.q"), "{err}");
    let mut item = at_limit().to_item().unwrap();
    item.remove("m");
    let err = AtLimit::from_item(item).unwrap_err().to_string();
    assert!(err.contains("AtLimit.m"), "{err}");
}

#[test]
fn field_handles_debug_as_their_attributes() {
    let text = format!("{:?}", Wide::fields());
    assert!(
        text.starts_with("WideFields { a: Attr(a), b: Attr(b)"),
        "{text}"
    );
    assert!(text.ends_with("note: Attr(note) }"), "{text}");
}

#[test]
fn each_accessor_stage_is_the_entity_stage_struct() {
    // `WideByOQuery<STAGE>` names `WideQueries<WideByO, STAGE>`: the same
    // type, told apart from the other access patterns' by its marker.
    let stage: WideQueries<WideByO, 1> = Wide::by_o("o").p().eq(17u32);
    let named: WideByOQuery<1> = stage;
    let query = named.limit(5).build();
    assert_eq!(query.get_limit(), Some(5));
    let table: WidePrimaryQuery<0> = Wide::primary(
        "a", "b", 1u8, 2u16, 3u32, 4u64, 5i8, 6i16, 7i32, 8i64, true, "l", "m",
    );
    // Debug names the access pattern's stage type.
    assert!(
        format!("{table:?}").starts_with("WidePrimaryQuery {"),
        "{table:?}"
    );
}
