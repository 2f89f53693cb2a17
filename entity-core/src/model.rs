//! The static description of an entity: names, key attributes, templates and
//! indexes, as written by `#[derive(Entity)]`.
//!
//! The client reads it to build requests and tables, and it is the place
//! later features hang off (table-design export, collections, TTL, version
//! attributes) without changing the shape of generated code.

/// Everything the derive knows about one entity, as plain data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityModel {
    /// The entity name stored in every item's identity attribute (`Task`).
    pub name: &'static str,
    /// The entity's version (the `1` of `task_1` in collection keys).
    pub version: u32,
    /// The schema (service) name, the `myapp` of `$myapp#v1#...`.
    pub schema: &'static str,
    /// The schema version, the `1` of `v1`.
    pub schema_version: u32,
    /// The table the entity lives in, if declared.
    pub table: Option<&'static str>,
    /// The attribute that records the entity name in every item.
    pub identity_attribute: &'static str,
    /// The attribute that records the entity version in every item.
    pub version_attribute: &'static str,
    /// How the version is stored in `version_attribute`.
    pub version_type: VersionType,
    /// The table's own key.
    pub primary: IndexModel,
    /// Every secondary index, in declaration order.
    pub indexes: &'static [IndexModel],
    /// Every stored field and its attribute name.
    pub fields: &'static [FieldModel],
    /// The fields the client writes itself: timestamps, generated ids, the
    /// optimistic-lock version, unique constraints.
    pub managed: crate::managed::ManagedModel,
    /// Time to live, soft delete and version history.
    pub lifecycle: crate::lifecycle::LifecycleModel,
    /// The tenant field, when the partition keys hold a tenant
    /// (`#[entity(tenant = tenant_id)]`).
    pub tenant: Option<crate::tenant::TenantModel>,
}

impl EntityModel {
    /// Whether the entity has `#[entity(encrypt)]` or `#[entity(sign)]`
    /// fields: its items are written through encryption alone. A `const
    /// fn`, so the client decides it once per entity, at compile time.
    pub const fn encrypts(&self) -> bool {
        let mut i = 0;
        while i < self.fields.len() {
            if self.fields[i].encrypted || self.fields[i].signed {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Every key attribute the entity writes (table and index keys),
    /// without repeats.
    pub fn key_attributes(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for index in std::iter::once(&self.primary).chain(self.indexes) {
            for key in std::iter::once(&index.pk).chain(&index.sk) {
                if !out.contains(&key.attribute) {
                    out.push(key.attribute);
                }
            }
            for key in index.multi_attribute {
                if !out.contains(&key.attribute) {
                    out.push(key.attribute);
                }
            }
        }
        out
    }

    /// The version attribute's value in items of the current version.
    pub fn version_value(&self) -> aws_sdk_dynamodb::types::AttributeValue {
        let version = self.version.to_string();
        match self.version_type {
            VersionType::Number => aws_sdk_dynamodb::types::AttributeValue::N(version),
            VersionType::String => aws_sdk_dynamodb::types::AttributeValue::S(version),
        }
    }

    /// Whether key attribute `attribute` is stored as a number (`N`).
    pub fn is_number_key(&self, attribute: &str) -> bool {
        std::iter::once(&self.primary)
            .chain(self.indexes)
            .flat_map(|index| std::iter::once(&index.pk).chain(&index.sk))
            .any(|key| key.number && key.attribute == attribute)
            || self.key_scalar(attribute) == Some(ScalarType::N)
    }

    /// The type of a multi-attribute key's attribute `attribute`, if it is
    /// one (composed keys are `S`, or `N` when [`KeyModel::number`]).
    pub fn key_scalar(&self, attribute: &str) -> Option<ScalarType> {
        std::iter::once(&self.primary)
            .chain(self.indexes)
            .flat_map(|index| index.multi_attribute)
            .find(|key| key.attribute == attribute)
            .map(|key| key.scalar)
    }

    /// The index with this logical name (`"primary"` for the table).
    pub fn index(&self, name: &str) -> Option<&IndexModel> {
        std::iter::once(&self.primary)
            .chain(self.indexes)
            .find(|index| index.name == name)
    }
}

/// How an item stores its entity version: a number (`N`, the default) or,
/// for tables another tool wrote (ElectroDB's `__edb_v__: "1"`), a string.
/// Either is read; this is what is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionType {
    /// `N`.
    Number,
    /// `S`.
    String,
}

/// Which kind of index a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// The table's primary key.
    Primary,
    /// A global secondary index.
    Global,
    /// A local secondary index (same partition key as the table).
    Local,
}

/// One access pattern: the table's key or a secondary index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexModel {
    /// The logical name, which names the query accessor (`by_project`;
    /// `primary` for the table).
    pub name: &'static str,
    /// The physical index name (`gsi1`); `None` for the table.
    pub index_name: Option<&'static str>,
    /// Table, GSI or LSI.
    pub kind: IndexKind,
    /// The partition key.
    pub pk: KeyModel,
    /// The sort key, if the index has one.
    pub sk: Option<KeyModel>,
    /// A multi-attribute GSI's key: its partition attributes, then its sort
    /// attributes, each a field's own attribute. Empty for a composed key.
    /// When set, `pk` names the first partition attribute and `sk` is `None`.
    pub multi_attribute: &'static [NativeKeyModel],
    /// What the index holds of each item (`ALL` for the table).
    pub projection: IndexProjection,
}

/// What a secondary index holds of each item: `#[index(name(gsi = "gsi1",
/// pk(..), projection = keys_only))]`. Every index holds the table's and its
/// own key attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexProjection {
    /// The whole item (the default): queries read whole entities.
    All,
    /// Only the key attributes.
    KeysOnly,
    /// The key attributes and these fields' attributes (`include(title,
    /// due)`); the entity's identity and version attributes go with them,
    /// so items of entities sharing the index stay told apart.
    Include(&'static [&'static str]),
}

impl IndexProjection {
    /// The projection type DynamoDB names it by: `ALL`, `KEYS_ONLY` or
    /// `INCLUDE`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            IndexProjection::All => "ALL",
            IndexProjection::KeysOnly => "KEYS_ONLY",
            IndexProjection::Include(_) => "INCLUDE",
        }
    }
}

impl IndexModel {
    /// The table's own key, as an access pattern named `primary`.
    pub const fn table(pk: KeyModel, sk: Option<KeyModel>) -> Self {
        Self {
            name: "primary",
            index_name: None,
            kind: IndexKind::Primary,
            pk,
            sk,
            multi_attribute: &[],
            projection: IndexProjection::All,
        }
    }

    /// Secondary index `index_name` (of `kind` `Global` or `Local`), whose
    /// accessor is `name`, with a composed key.
    ///
    /// ```
    /// use entity_core::{IndexKind, IndexModel, KeyModel};
    ///
    /// const BY_OWNER: IndexModel = IndexModel::secondary(
    ///     "by_owner",
    ///     "gsi1",
    ///     IndexKind::Global,
    ///     KeyModel::text("gsi1pk", &["owner"], "$app#v1#task#owner_{owner}"),
    ///     None,
    /// );
    /// assert_eq!(BY_OWNER.index_name, Some("gsi1"));
    /// assert_eq!(BY_OWNER.projection, entity_core::IndexProjection::All);
    /// ```
    pub const fn secondary(
        name: &'static str,
        index_name: &'static str,
        kind: IndexKind,
        pk: KeyModel,
        sk: Option<KeyModel>,
    ) -> Self {
        Self {
            name,
            index_name: Some(index_name),
            kind,
            pk,
            sk,
            multi_attribute: &[],
            projection: IndexProjection::All,
        }
    }

    /// This index with another projection.
    ///
    /// ```
    /// use entity_core::{IndexKind, IndexModel, IndexProjection, KeyModel};
    ///
    /// const BY_OWNER: IndexModel = IndexModel::secondary(
    ///     "by_owner",
    ///     "gsi1",
    ///     IndexKind::Global,
    ///     KeyModel::text("gsi1pk", &["owner"], "$app#v1#task#owner_{owner}"),
    ///     None,
    /// )
    /// .with_projection(IndexProjection::Include(&["title"]));
    /// assert_eq!(BY_OWNER.projection.as_str(), "INCLUDE");
    /// ```
    pub const fn with_projection(mut self, projection: IndexProjection) -> Self {
        self.projection = projection;
        self
    }
}

/// One attribute of a multi-attribute GSI key (`#[index(by_region(gsi =
/// "gsi3", multi_attribute, pk(tenant_id, region), sk(status)))]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeKeyModel {
    /// The attribute: the field's own.
    pub attribute: &'static str,
    /// The field it stores.
    pub field: &'static str,
    /// A sort (`RANGE`) attribute; otherwise a partition (`HASH`) one.
    pub sort: bool,
    /// Its DynamoDB type, from the field's type.
    pub scalar: ScalarType,
}

/// A key attribute's DynamoDB type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    /// A string.
    S,
    /// A number.
    N,
    /// Binary.
    B,
}

/// One key attribute and how its value is composed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyModel {
    /// The physical attribute (`pk`, `gsi1sk`).
    pub attribute: &'static str,
    /// The composite fields, in key order.
    pub composites: &'static [&'static str],
    /// The key template, with `{field}` where values go:
    /// `$myapp#v1#task#taskid_{task_id}`.
    pub template: &'static str,
    /// Stored as a DynamoDB number (`N`): `#[pk(user_id, number)]`, one
    /// integer written as plain decimal. Otherwise a string (`S`).
    pub number: bool,
    /// A write-sharded partition key (`#[pk(status, shards = 10)]`): the
    /// shard count and the suffix each shard's key ends with. `None` for
    /// every other key.
    pub shards: Option<crate::key::ShardSpec>,
}

impl KeyModel {
    /// A string key attribute composed by `template` from `composites`,
    /// not sharded.
    ///
    /// ```
    /// use entity_core::KeyModel;
    ///
    /// const PK: KeyModel = KeyModel::text("pk", &["task_id"], "$app#v1#task#task_id_{task_id}");
    /// assert!(!PK.number && PK.shards.is_none());
    /// ```
    pub const fn text(
        attribute: &'static str,
        composites: &'static [&'static str],
        template: &'static str,
    ) -> Self {
        Self {
            attribute,
            composites,
            template,
            number: false,
            shards: None,
        }
    }

    /// The number of shards of a sharded partition key (`None`: not
    /// sharded).
    pub fn shard_count(&self) -> Option<u16> {
        self.shards.map(|spec| spec.count)
    }
}

/// A stored field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldModel {
    /// The Rust field name.
    pub field: &'static str,
    /// The attribute name in DynamoDB.
    pub attribute: &'static str,
    /// `#[entity(encrypt)]`: stored encrypted and signed.
    pub encrypted: bool,
    /// `#[entity(sign)]`: stored plain, signed with the item.
    pub signed: bool,
    /// `#[entity(compress)]`: stored compressed when long enough
    /// ([`compress`](crate::compress)).
    pub compressed: bool,
}

impl FieldModel {
    /// Field `field`, stored in attribute `attribute`.
    pub const fn new(field: &'static str, attribute: &'static str) -> Self {
        Self {
            field,
            attribute,
            encrypted: false,
            signed: false,
            compressed: false,
        }
    }

    /// Fields each stored under its own name, none encrypted or signed.
    #[doc(hidden)]
    pub const fn plain<const N: usize>(names: [&'static str; N]) -> [Self; N] {
        let mut out = [Self::new("", ""); N];
        let mut i = 0;
        while i < N {
            out[i] = Self::new(names[i], names[i]);
            i += 1;
        }
        out
    }

    /// The field, signed (`#[entity(sign)]`).
    pub const fn signed(self) -> Self {
        Self {
            signed: true,
            ..self
        }
    }

    /// The field, compressed when long enough (`#[entity(compress)]`).
    pub const fn compressed(self) -> Self {
        Self {
            compressed: true,
            ..self
        }
    }

    /// The field, encrypted (`#[entity(encrypt)]`).
    pub const fn encrypted(self) -> Self {
        Self {
            encrypted: true,
            ..self
        }
    }
}
