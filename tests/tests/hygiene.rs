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
    #[entity(schema = "hygiene", tenant = tenant_id, unique(kind, name = "sole_kind"))]
    #[pk(format = "T#{tenant_id}")]
    #[sk(id)]
    #[index(by_kind(gsi = "gsi2", pk(tenant_id, kind), sk(id)))]
    pub struct Tenanted {
        pub tenant_id: std::string::String,
        pub id: Id,
        pub kind: Kind,
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

    /// The key language's generated paths: text after a field, unpadded
    /// and number-typed composites, a derived part, a multi-attribute
    /// index, an upgrade.
    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(format = "LOG#{tenant}#{at:month}")]
    #[sk(format = "EV#{id}@{rev:unpadded}")]
    #[index(by_seq(gsi = "gsi2", pk(seq, number), projection = keys_only))]
    #[index(by_region(gsi = "gsi3", multi_attribute, pk(tenant), sk(rev), projection = all))]
    pub struct Event {
        pub tenant: std::string::String,
        pub at: chrono::DateTime<chrono::Utc>,
        pub id: std::string::String,
        pub rev: u32,
        pub seq: u64,
    }

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene", name = "Doc", version = 1)]
    #[pk(id)]
    pub struct DocV1 {
        pub id: std::string::String,
    }

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene", name = "Doc", version = 2, upgrade_from = DocV1)]
    #[pk(id)]
    pub struct Doc {
        pub id: std::string::String,
        pub title: core::option::Option<std::string::String>,
    }

    impl From<DocV1> for Doc {
        fn from(old: DocV1) -> Self {
            Doc {
                id: old.id,
                title: core::option::Option::None,
            }
        }
    }

    /// Managed fields and unique constraints: every role, an optional
    /// unique field, a case-insensitive compound constraint, a unique field
    /// in an index key (whose group setter guards on it).
    #[derive(Entity, Debug, PartialEq)]
    #[entity(
        schema = "hygiene",
        unique(email, case_insensitive),
        unique(tenant, phone, name = "phone")
    )]
    #[pk(id)]
    #[sk(created)]
    #[index(by_status(gsi = "gsi4", pk(tenant), sk(email, status)))]
    pub struct Account {
        #[entity(generate = "ulid")]
        pub id: std::string::String,
        #[entity(generate = "uuid")]
        pub token: std::string::String,
        pub tenant: Kind,
        pub email: std::string::String,
        pub phone: core::option::Option<u64>,
        pub status: std::string::String,
        #[entity(version)]
        pub version: u32,
        #[entity(created_at)]
        pub created: entity_core::EpochMillis,
        #[entity(updated_at)]
        pub updated: core::option::Option<chrono::DateTime<chrono::Utc>>,
    }

    /// Every lifecycle attribute.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        schema = "hygiene",
        soft_delete(keep_unique, expire_after = "30d"),
        history(keep = 3, separator = "~", expire_after = "90d")
    )]
    #[pk(id)]
    #[sk()]
    pub struct Ledger {
        pub id: std::string::String,
        #[entity(version)]
        pub version: u64,
        #[entity(ttl(after = "1d"))]
        pub expires: core::option::Option<chrono::DateTime<chrono::Utc>>,
        #[entity(deleted_at)]
        pub deleted: core::option::Option<entity_core::EpochMillis>,
    }

    #[derive(Collection, Debug, PartialEq)]
    #[collection(name = "group", pk(group: std::string::String))]
    pub enum Group {
        Lefts(Left),
        Rights(Right),
    }
    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene", tenant = tenant_id)]
    #[pk(tenant_id, id)]
    #[index(by_team(gsi = "gsi8", collection = "team", pk(tenant_id, team), sk(id)))]
    pub struct Member {
        pub tenant_id: std::string::String,
        pub id: std::string::String,
        pub team: std::string::String,
    }

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene", tenant = tenant_id)]
    #[pk(tenant_id, name)]
    #[index(by_team(gsi = "gsi8", collection = "team", pk(tenant_id, team), sk(name)))]
    pub struct Role {
        pub tenant_id: std::string::String,
        pub name: std::string::String,
        pub team: std::string::String,
    }

    #[derive(Collection, Debug, PartialEq)]
    #[collection(name = "team", pk(tenant_id: std::string::String, team: std::string::String))]
    pub enum Team {
        Members(Member),
        Roles(Role),
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
        .n()
        .eq(1)
        .id()
        .eq(shadowed::Id("x".into()))
        .build();
    assert_eq!(q.index_name(), Some("gsi1"));
}

#[test]
fn shadowed_names_do_not_break_tenancy() {
    use entity_core::{KeyTenant, TenantEntity};
    let key = shadowed::Tenanted::tenant_key(shadowed::Id("a".into())).for_tenant("t1");
    assert_eq!(key.pk, "T#t1");
    assert_eq!(
        <shadowed::Tenanted as TenantEntity>::key_tenant("pk", "T#t1"),
        KeyTenant::Tenant("t1".into())
    );
    let q = shadowed::Tenanted::tenant_by_kind(shadowed::Kind::A).build();
    assert_eq!(q.index_name(), Some("gsi2"));
    let tenanted = shadowed::Tenanted {
        tenant_id: "t1".into(),
        id: shadowed::Id("a".into()),
        kind: shadowed::Kind::A,
    };
    let values = entity_core::Entity::unique_values(&tenanted);
    assert_eq!(values, [Some("t1#A".to_owned())]);
    let lookup = shadowed::Tenanted::by_sole_kind(shadowed::Kind::A);
    assert_eq!(lookup.for_tenant("t1").value(), "t1#A");
    let readers = <shadowed::Team as entity_core::TenantReadable>::tenant_readers();
    assert_eq!(readers.len(), 2);
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

#[test]
fn key_language_paths_compile_and_compose_where_names_are_shadowed() {
    use chrono::TimeZone;
    use entity_core::Entity;
    let event = shadowed::Event {
        tenant: "t1".into(),
        at: chrono::Utc
            .with_ymd_and_hms(2024, 1, 15, 10, 30, 0)
            .unwrap(),
        id: "a@b".into(),
        rev: 3,
        seq: 7,
    };
    assert_eq!(event.pk(), "LOG#t1#2024-01");
    assert_eq!(event.sk(), "EV#a@b@3");
    assert_eq!(
        shadowed::Event::from_item(event.to_item().unwrap()).unwrap(),
        event
    );
    let old = shadowed::DocV1 { id: "d".into() };
    let doc = shadowed::Doc::from_item(old.to_item().unwrap()).unwrap();
    assert_eq!(doc.title, None);
}

#[test]
fn managed_fields_compile_and_compose_where_names_are_shadowed() {
    use entity_core::Entity;
    let account = shadowed::Account {
        id: "a".into(),
        token: "t".into(),
        tenant: shadowed::Kind::A,
        email: "Ada@X".into(),
        phone: None,
        status: "open".into(),
        version: 1,
        created: entity_core::EpochMillis(5),
        updated: None,
    };
    assert_eq!(
        account.unique_values(),
        vec![Some("ada@x".to_owned()), None]
    );
    assert_eq!(
        shadowed::Account::by_phone(shadowed::Kind::B, 7u64).value(),
        "B#00000000000000000007"
    );
    assert_eq!(shadowed::Account::MODEL.managed.version, Some("version"));
    let change = shadowed::Account::set_status("closed", "Ada@X");
    let _ = entity_core::expr::Update::<shadowed::Account>::new().apply(change);
    assert_eq!(
        shadowed::Account::from_item(account.to_item().unwrap()).unwrap(),
        account
    );
}

#[test]
fn lifecycle_attributes_compile_and_convert_where_names_are_shadowed() {
    use chrono::TimeZone;
    use entity_core::Entity;
    let ledger = shadowed::Ledger {
        id: "l".into(),
        version: 2,
        expires: Some(chrono::Utc.timestamp_opt(1_700_000_000, 0).unwrap()),
        deleted: None,
    };
    let item = ledger.to_item().unwrap();
    assert_eq!(
        item["expires"],
        aws_sdk_dynamodb::types::AttributeValue::N("1700000000".into())
    );
    assert_eq!(shadowed::Ledger::from_item(item).unwrap(), ledger);
    let lifecycle = shadowed::Ledger::MODEL.lifecycle;
    assert_eq!(lifecycle.ttl.map(|t| t.after), Some(Some(86_400)));
    assert_eq!(lifecycle.soft_delete.map(|s| s.attribute), Some("deleted"));
    assert_eq!(lifecycle.history.map(|h| h.separator), Some("~"));
}

/// Names of the caller's that generated code must not meet: lowercase
/// constants named like a field or a generated local (hygiene covers
/// locals, not items, so such a constant would be matched as a pattern;
/// `key`, the parameter of the generated parsers, is the one name left), a
/// trait in scope whose methods are named like the steps a group setter
/// takes, and an entity with no fields at all.
mod callers_names {
    #![allow(non_upper_case_globals)]
    use entity_core::Entity;

    pub const title: &str = "a constant named like a field";
    pub const change: u8 = 0;
    pub const item: u8 = 0;
    pub const value: u8 = 0;
    pub const out: u8 = 0;

    /// A type named like a short generic parameter.
    #[derive(entity_core::KeyPart, Debug, Clone, Copy, PartialEq)]
    pub enum A0 {
        Low,
        High,
    }

    /// An encoded composite (`n`, unpadded) and a whole sort key of two
    /// composites, one of them an `A0`.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(id)]
    #[sk(format = "N#{n:unpadded}")]
    #[index(by_level(gsi = "gsi1", pk(id), sk(level, n)))]
    pub struct Reading {
        pub id: String,
        pub n: u64,
        pub level: A0,
    }

    /// A blanket trait with the names of the change steps.
    pub trait Steps {
        fn with_field(self, attribute: &str) -> Self;
        fn with_key(self, attribute: &str) -> Self;
        fn __field(self, attribute: &str) -> Self;
        fn __key(self, attribute: &str) -> Self;
    }

    impl<T> Steps for T {
        fn with_field(self, _: &str) -> Self {
            self
        }
        fn with_key(self, _: &str) -> Self {
            self
        }
        fn __field(self, _: &str) -> Self {
            self
        }
        fn __key(self, _: &str) -> Self {
            self
        }
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk(id)]
    #[sk()]
    #[index(by_owner(gsi = "gsi1", pk(owner), sk(status)))]
    pub struct Ticket {
        pub id: String,
        pub title: String,
        pub owner: String,
        pub status: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(schema = "hygiene")]
    #[pk()]
    #[sk()]
    pub struct Marker {}
}

#[test]
fn callers_constants_and_traits_do_not_break_generated_code() {
    use callers_names::{Marker, Ticket};
    use entity_core::Entity;
    let ticket = Ticket {
        id: "t1".into(),
        title: "Broken".into(),
        owner: "ada".into(),
        status: "open".into(),
    };
    assert_eq!(
        Ticket::from_item(ticket.to_item().unwrap()).unwrap(),
        ticket
    );
    let f = Ticket::fields();
    let update = entity_core::expr::Update::new()
        .set(f.title, "Fixed")
        .apply(Ticket::set_owner("grace"));
    assert!(format!("{update:?}").contains("gsi1pk"), "{update:?}");
    assert_eq!(
        Marker::from_item(Marker {}.to_item().unwrap()).unwrap(),
        Marker {}
    );
    assert_eq!(callers_names::title, "a constant named like a field");
}

#[test]
fn encoded_composites_and_whole_keys_meet_callers_names() {
    use callers_names::{Reading, A0};
    use entity_core::SortCondition;
    let q = Reading::primary("r1").n().eq(7u64).build();
    let sort = q.sort_condition().map(|(_, c)| c.clone());
    assert_eq!(sort, Some(SortCondition::Eq("N#7".into())));
    let q = Reading::by_level("r1").sk().gte((A0::High, 3u64));
    let Some((_, SortCondition::Between(low, _))) = q.sort_condition() else {
        panic!("{q:?}");
    };
    assert!(
        low.ends_with(&Reading::by_level_sk_of(A0::High, 3u64)),
        "{low}"
    );
    assert_eq!(callers_names::value + callers_names::out, 0);
}

/// A query stage's `Debug` names its access pattern's stage type.
#[test]
fn a_query_stage_debugs_as_its_access_pattern() {
    let stage = callers_names::Ticket::by_owner("ada");
    let text = format!("{stage:?}");
    assert!(
        text.starts_with("TicketByOwnerQuery { query: Query"),
        "{text}"
    );
}

/// `Clone` entities, whose derive finds `Clone::clone` at compile time:
/// no import it brings goes unused, with the crate named by the user too,
/// declared in a function's body, or beside a trait of the user's, for
/// every type, with constants named like the probe's.
mod probed {
    use entity_client::Entity;

    pub trait Named {
        const DERIVED: bool = true;
        const COPY: bool = true;
    }
    impl<T> Named for T {}

    #[derive(Entity, Clone, Debug, PartialEq)]
    #[entity(schema = "hygiene", crate = "::entity_client")]
    #[pk(id)]
    pub struct Copied {
        pub id: String,
    }

    #[derive(Entity, Debug, PartialEq)]
    #[entity(schema = "hygiene", crate = "::entity_client")]
    #[pk(id)]
    pub struct NotCopied {
        pub id: String,
    }

    pub fn declared_in_a_body() -> &'static str {
        #[derive(Entity, Clone)]
        #[entity(schema = "hygiene")]
        #[pk(id)]
        struct Inner {
            id: String,
        }
        Inner::MODEL.name
    }
}
