//! Generated code compiles where prelude names are shadowed, and under
//! `deny(warnings)`.
#![deny(warnings, unused_qualifications)]
#![allow(dead_code)]

mod shadowed {
    #![allow(non_camel_case_types)]
    use entity_core::{Collection, Entity, KeyPart};

    struct Result;
    struct Option;
    struct Some;
    struct None;
    struct Ok;
    struct Err;
    struct String;
    struct Vec;
    struct Box;
    struct HashMap;
    struct Default;
    struct Clone;

    #[derive(KeyPart, Debug, PartialEq)]
    pub enum Kind {
        A,
        B,
    }

    #[derive(KeyPart, Debug, PartialEq)]
    pub struct Id(pub std::string::String);

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(id)]
    #[sk(kind, n)]
    #[index(by_kind(gsi = "gsi1", pk(kind), sk(n, id)))]
    pub struct Thing {
        pub id: Id,
        pub kind: Kind,
        pub n: i64,
        pub note: core::option::Option<std::string::String>,
    }

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(id)]
    #[index(by_group(gsi = "gsi9", collection = "group", clustered, pk(group), sk(id)))]
    pub struct Left {
        pub id: std::string::String,
        pub group: std::string::String,
    }

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(id)]
    #[index(by_group(gsi = "gsi9", collection = "group", clustered, pk(group), sk()))]
    pub struct Right {
        pub id: std::string::String,
        pub group: std::string::String,
    }

    #[derive(Collection, Debug, PartialEq)]
    #[collection(name = "group", pk(group: std::string::String))]
    pub enum Group {
        Lefts(Left),
        Rights(Right),
    }
}

#[test]
fn shadowed_prelude_names_do_not_break_generated_code() {
    use entity_core::Entity;
    let thing = shadowed::Thing {
        id: shadowed::Id("a".into()),
        kind: shadowed::Kind::B,
        n: -2,
        note: None,
    };
    let item = thing.to_item().unwrap();
    assert_eq!(shadowed::Thing::from_item(item).unwrap(), thing);
    assert_eq!(
        thing.sk(),
        "$hygiene#v1#thing#kind_B#n_-9999999999999999997"
    );
    let q = shadowed::Thing::by_kind(shadowed::Kind::A)
        .n(1)
        .id_eq(shadowed::Id("x".into()));
    assert_eq!(q.index_name(), Some("gsi1"));
}

#[test]
fn shadowed_names_do_not_break_collections() {
    use entity_core::{Collection, Entity};
    let left = shadowed::Left {
        id: "l".into(),
        group: "g".into(),
    };
    let decoded = shadowed::Group::decode(left.to_item().unwrap()).unwrap();
    assert_eq!(decoded, Some(shadowed::Group::Lefts(left)));
    assert_eq!(shadowed::Group::query("g").index_name(), Some("gsi9"));
}
