//! Helpers called by generated code. Not a public API: names and signatures
//! change without notice.

pub use crate::attr::tuple::{
    plain_item, put_fields, read_fields, read_plain_item, PutFields, ReadFields, MAX_FIELDS,
};
#[cfg(feature = "serde")]
pub use crate::attr::{from_serde_attribute, serde_from_missing, to_serde_attribute};
pub use crate::key::bucket::{
    Bucket, BucketArg, BUCKET_DAY, BUCKET_HOUR, BUCKET_MONTH, BUCKET_YEAR,
};
pub use crate::key::tuple::{
    compose, key_fields, key_item, parse, parse_with, KeyArgs, KeyParts, MAX_TUPLE,
};
pub use crate::key::unpadded::{Decimal, PlainArg, Unpadded};
pub use crate::query::{Comparison, KeyQuery};
pub use crate::sort_key::{
    composite, encoded_composite, native_composite, sort_key, stage, stage_of,
};
pub use crate::view::{view_key, view_key_text, view_parsed};

/// Collection helpers for `#[derive(Collection)]`'s expansion.
pub mod collection {
    pub use crate::collection::consts::*;
}
pub use aws_sdk_dynamodb::types::AttributeValue;

use crate::attr::{AttributeError, FromAttribute, ToAttribute};
use crate::error::{DecodeError, EncodeError};
use crate::expr::{Attr, Condition, IndexChange, Update};
use crate::key::KeyPart;
use crate::model::EntityModel;
use crate::{Entity, Item, ItemWriter};

/// The values of an item's attributes named in `names`, in that order
/// (`None` where missing), in one pass over the item; other attributes are
/// dropped. `from_item` reads its fields from these slots.
pub fn slots<const N: usize>(item: Item, names: &[&str; N]) -> [Option<AttributeValue>; N] {
    let mut slots = [const { None }; N];
    for (name, value) in item {
        if let Some(i) = names.iter().position(|n| *n == name) {
            slots[i] = Some(value);
        }
    }
    slots
}

/// `Debug` of an entity's field handles (`TaskFields { task_id:
/// Attr(task_id), .. }`), from its model.
pub fn debug_fields(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    model: &EntityModel,
) -> std::fmt::Result {
    let mut out = f.debug_struct(name);
    for field in model.fields {
        let name = field.field.trim_start_matches("r#");
        out.field(name, &format_args!("Attr({})", field.attribute));
    }
    out.finish()
}

/// Proves at compile time, with the error on the field, that a composite's
/// type can be a key.
#[inline(always)]
pub const fn assert_key_part<T: KeyPart>() {}

/// Proves at compile time, with the error on the field, that a field's type
/// can be stored as an attribute.
#[inline(always)]
pub const fn assert_attribute<T: ToAttribute + FromAttribute>() {}

/// Proves, with the error on the field, that a multi-attribute key field's
/// type has a native key type (`S`, `N` or `B`).
#[inline(always)]
pub const fn assert_native_key<T: crate::NativeKey>() {}

/// A chrono timestamp that can be a key: `DateTime<Utc>`, with the `chrono`
/// feature. The derive checks chrono-looking composites against this, so
/// the error says what to change.
#[cfg_attr(
    feature = "chrono",
    diagnostic::on_unimplemented(
        message = "`{Self}` cannot be part of a DynamoDB key: chrono timestamps are keys as `DateTime<Utc>`",
        label = "this field is a key composite",
        note = "store the instant as `DateTime<Utc>` (`.with_timezone(&Utc)`), which sorts as time"
    )
)]
#[cfg_attr(
    not(feature = "chrono"),
    diagnostic::on_unimplemented(
        message = "`{Self}` is a key type only with the `chrono` feature",
        label = "this field is a key composite",
        note = "enable the feature: `features = [\"chrono\"]` on the `entity-client` (or `entity-core`) dependency"
    )
)]
pub trait ChronoKeyPart: KeyPart {}

#[cfg(feature = "chrono")]
impl ChronoKeyPart for chrono::DateTime<chrono::Utc> {}

/// [`assert_key_part`] for chrono-looking composites.
#[inline(always)]
pub const fn assert_chrono_key_part<T: ChronoKeyPart>() {}

/// A `time` timestamp that can be a key: `OffsetDateTime` or
/// `UtcDateTime`, with the `time` feature.
#[cfg_attr(
    feature = "time",
    diagnostic::on_unimplemented(
        message = "`{Self}` cannot be part of a DynamoDB key: `time` timestamps are keys as `OffsetDateTime`",
        label = "this field is a key composite",
        note = "store the instant as `OffsetDateTime` (`.assume_utc()`), which sorts as time"
    )
)]
#[cfg_attr(
    not(feature = "time"),
    diagnostic::on_unimplemented(
        message = "`{Self}` is a key type only with the `time` feature",
        label = "this field is a key composite",
        note = "enable the feature: `features = [\"time\"]` on the `entity-client` (or `entity-core`) dependency"
    )
)]
pub trait TimeKeyPart: KeyPart {}

#[cfg(feature = "time")]
impl TimeKeyPart for time::OffsetDateTime {}

/// [`assert_key_part`] for `time`-looking composites.
#[inline(always)]
pub const fn assert_time_key_part<T: TimeKeyPart>() {}

/// Writes one field.
#[inline]
pub fn put_field<T: ToAttribute + ?Sized>(
    item: &mut ItemWriter,
    entity: &'static str,
    attribute: &'static str,
    value: &T,
) -> Result<(), EncodeError> {
    put_attribute(item, entity, attribute, value.to_attribute())
}

/// Writes one already converted attribute (`None`: leave it out).
#[inline]
pub fn put_attribute(
    item: &mut ItemWriter,
    entity: &'static str,
    attribute: &'static str,
    value: Result<Option<AttributeValue>, AttributeError>,
) -> Result<(), EncodeError> {
    match value {
        Ok(Some(value)) => {
            item.put(attribute, value);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(source) => Err(EncodeError {
            entity,
            attribute,
            source,
        }),
    }
}

/// Writes a composed key.
#[inline]
pub fn put_key(item: &mut ItemWriter, attribute: &'static str, key: String) {
    item.put_key(attribute, AttributeValue::S(key));
}

/// Writes composed string keys (`to_item`), as [`put_key`] does each.
#[inline]
pub fn put_keys<const N: usize>(item: &mut ItemWriter, keys: [(&'static str, String); N]) {
    for (attribute, key) in keys {
        put_key(item, attribute, key);
    }
}

/// Writes a number-typed key (`#[pk(user_id, number)]`): its text is plain
/// decimal.
#[inline]
pub fn put_number_key(item: &mut ItemWriter, attribute: &'static str, key: String) {
    item.put_key(attribute, AttributeValue::N(key));
}

/// A composed key's attribute value: `N` when the entity stores
/// `attribute` as a number, else `S`.
pub fn key_value(model: &EntityModel, attribute: &str, text: String) -> AttributeValue {
    if model.is_number_key(attribute) {
        AttributeValue::N(text)
    } else {
        AttributeValue::S(text)
    }
}

/// `BETWEEN` on a number-typed sort key: the ends are plain decimal, so an
/// empty range is found by comparing them as numbers, not as text.
pub fn number_between<E>(
    query: crate::Query<E>,
    sk_attribute: &'static str,
    low: String,
    high: String,
) -> crate::Query<E> {
    let number = |text: &str| text.parse::<i128>().ok();
    let condition = match (number(&low), number(&high)) {
        (Some(l), Some(h)) if l > h => crate::SortCondition::Nothing,
        _ => crate::SortCondition::Between(low, high),
    };
    query.with_sort(sk_attribute, condition)
}

/// Writes the identity and version attributes, under the entity's names.
#[inline]
pub fn put_identity(item: &mut ItemWriter, model: &EntityModel) {
    item.put(
        model.identity_attribute,
        AttributeValue::S(model.name.to_owned()),
    );
    item.put(model.version_attribute, model.version_value());
}

/// Fails with [`DecodeError::Version`] unless the item holds the entity's
/// current version (as a number or a string, whichever the writer used).
#[inline]
pub fn check_version(item: &Item, model: &'static EntityModel) -> Result<(), DecodeError> {
    let stored = match item.get(model.version_attribute) {
        Some(AttributeValue::N(text) | AttributeValue::S(text)) => {
            if text.trim().parse::<u32>() == Ok(model.version) {
                return Ok(());
            }
            Some(text.clone())
        }
        Some(other) => Some(format!("of type {}", crate::attr::type_name(other))),
        None => None,
    };
    Err(DecodeError::Version {
        entity: model.name,
        attribute: model.version_attribute,
        stored,
        current: model.version,
    })
}

/// Reads an item of an older version through `E`'s `upgrade_from = P`
/// (which itself may upgrade from an older one). An item newer than `E`,
/// or older than the chain reaches, keeps `E`'s version error.
pub fn upgrade<P: Entity, E: Entity + From<P>>(
    item: Item,
    stale: DecodeError,
) -> Result<E, DecodeError> {
    let older = match &stale {
        DecodeError::Version {
            stored: Some(text), ..
        } => text
            .trim()
            .parse::<u32>()
            .is_ok_and(|v| v < E::MODEL.version),
        _ => false,
    };
    if !older {
        return Err(stale);
    }
    match P::from_item(item) {
        Ok(previous) => Ok(E::from(previous)),
        Err(DecodeError::Version { .. }) => Err(stale),
        Err(error) => Err(error),
    }
}

/// A read that skips what is not this type's (another entity's item, or
/// another version's with no upgrade).
#[inline]
pub fn skip_foreign<T>(read: Result<T, DecodeError>) -> Result<Option<T>, DecodeError> {
    match read {
        Ok(value) => Ok(Some(value)),
        Err(error) if error.is_foreign() => Ok(None),
        Err(error) => Err(error),
    }
}

/// Proves at compile time, with the error on the type named by
/// `upgrade_from`, that it is an entity the current one converts from.
#[inline(always)]
pub const fn assert_upgrade_from<P: Entity, E: From<P>>() {}

/// Fails unless the item is `model`'s entity ([`check_identity`]) at its
/// current version ([`check_version`]).
#[inline]
pub fn check_item(item: &Item, model: &'static EntityModel) -> Result<(), DecodeError> {
    check_identity(item, model.identity_attribute, model.name)?;
    check_version(item, model)
}

/// Fails unless the item's identity attribute names `entity`.
#[inline]
pub fn check_identity(
    item: &Item,
    identity_attribute: &'static str,
    entity: &'static str,
) -> Result<(), DecodeError> {
    match item.get(identity_attribute) {
        Some(AttributeValue::S(found)) if found == entity => Ok(()),
        other => Err(DecodeError::WrongEntity {
            expected: entity,
            attribute: identity_attribute,
            found: other.map(|value| match value {
                AttributeValue::S(s) => s.clone(),
                value => format!("of type {}", crate::attr::type_name(value)),
            }),
        }),
    }
}

/// Reads one field from the attribute found for it, if any.
#[inline]
pub fn read_field<T: FromAttribute>(
    value: Option<AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, DecodeError> {
    let fail = |source| DecodeError::Attribute {
        entity,
        attribute,
        source,
    };
    match value {
        Some(value) => T::from_attribute(value).map_err(fail),
        None => T::from_missing().ok_or_else(|| fail(AttributeError::Missing)),
    }
}

/// Writes one `#[entity(compress)]` field: compressed at `min` bytes and
/// above ([`crate::compress::encode`]).
#[inline]
pub fn put_compressed<T: crate::compress::Compressible>(
    item: &mut ItemWriter,
    entity: &'static str,
    attribute: &'static str,
    value: &T,
    min: usize,
) -> Result<(), EncodeError> {
    put_attribute(item, entity, attribute, crate::compress::encode(value, min))
}

/// Reads one `#[entity(compress)]` field, compressed or not.
#[inline]
pub fn read_compressed<T: crate::compress::Compressible>(
    value: Option<AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, DecodeError> {
    use crate::compress::ReadError;
    let fail = |source| DecodeError::Attribute {
        entity,
        attribute,
        source,
    };
    match value.map(crate::compress::decode) {
        Some(Ok(value)) => Ok(value),
        Some(Err(ReadError::Attribute(source))) => Err(fail(source)),
        Some(Err(ReadError::Compression(source))) => Err(DecodeError::Compressed {
            entity,
            attribute,
            source,
        }),
        None => T::from_missing().ok_or_else(|| fail(AttributeError::Missing)),
    }
}

/// Proves, with the error on the field's type, that a `#[entity(compress)]`
/// field holds text or bytes.
#[inline(always)]
pub const fn assert_compressible<T: crate::compress::Compressible>() {}

/// Proves a `#[entity(serde)]` field can be stored. With the `serde`
/// feature it always can (serde's own bounds speak at the conversion);
/// without it, this is the one error, naming the feature.
#[cfg(feature = "serde")]
#[inline(always)]
pub const fn assert_serde_field<T: ?Sized>() {}

/// What a `#[entity(serde)]` field needs without the `serde` feature:
/// implemented by nothing.
#[cfg(not(feature = "serde"))]
#[diagnostic::on_unimplemented(
    message = "`#[entity(serde)]` on a `{Self}` field needs the `serde` feature",
    label = "this field is stored through serde",
    note = "enable the feature: `features = [\"serde\"]` on the `entity-client` (or `entity-core`) dependency"
)]
pub trait SerdeFeature {}

/// [`assert_serde_field`] without the feature: fails for every type.
#[cfg(not(feature = "serde"))]
#[inline(always)]
pub const fn assert_serde_field<T: ?Sized + SerdeFeature>() {}

/// Without the `serde` feature: never called, since
/// [`assert_serde_field`] refuses the entity first.
#[cfg(not(feature = "serde"))]
pub fn to_serde_attribute<T: ?Sized>(_: &T) -> Result<Option<AttributeValue>, AttributeError> {
    Err(AttributeError::Invalid("the `serde` feature is off".into()))
}

/// Without the `serde` feature: never called, since
/// [`assert_serde_field`] refuses the entity first.
#[cfg(not(feature = "serde"))]
pub fn read_serde_field<T>(
    _: Option<AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, DecodeError> {
    Err(DecodeError::Attribute {
        entity,
        attribute,
        source: AttributeError::Invalid("the `serde` feature is off".into()),
    })
}

/// Reads one `#[entity(serde)]` field from the attribute found for it.
#[cfg(feature = "serde")]
#[inline]
pub fn read_serde_field<T: serde::de::DeserializeOwned>(
    value: Option<AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, DecodeError> {
    let fail = |source| DecodeError::Attribute {
        entity,
        attribute,
        source,
    };
    match value {
        Some(value) => from_serde_attribute(value).map_err(fail),
        None => serde_from_missing().ok_or_else(|| fail(AttributeError::Missing)),
    }
}

/// What a generated `MODEL` does not spell out: version 1, the default
/// identity and version attributes, no table override, nothing managed, no
/// lifecycle, no tenant. Its name, schema, keys and fields are placeholders
/// every model replaces.
pub const MODEL_DEFAULTS: EntityModel = EntityModel {
    name: "",
    version: 1,
    schema: "",
    schema_version: 1,
    table: None,
    identity_attribute: IDENTITY_ATTRIBUTE,
    version_attribute: VERSION_ATTRIBUTE,
    version_type: crate::VersionType::Number,
    primary: crate::IndexModel::table(crate::KeyModel::text("", &[], ""), None),
    indexes: &[],
    fields: &[],
    managed: crate::managed::ManagedModel::NONE,
    lifecycle: crate::lifecycle::LifecycleModel::NONE,
    tenant: None,
};

/// The attribute holding the entity name in every item.
pub const IDENTITY_ATTRIBUTE: &str = "__entity";
/// The attribute holding the entity version in every item.
pub const VERSION_ATTRIBUTE: &str = "__version";

/// A field handle (generated `fields()`).
#[inline]
pub const fn attr<E, T, M>(name: &'static str) -> Attr<E, T, M> {
    Attr::new(name)
}

/// `attribute_exists` on a raw attribute (the client's `create`, `patch`,
/// `remove`).
pub fn condition_exists<E>(attribute: &str) -> Condition<E> {
    Condition::attribute_exists(attribute)
}

/// `attribute_not_exists` on a raw attribute.
pub fn condition_not_exists<E>(attribute: &str) -> Condition<E> {
    Condition::attribute_not_exists(attribute)
}

/// A TTL attribute that holds a time at or before `now` (epoch seconds):
/// an expired item. Not true of an item without one, or with a value that
/// is not a number, as DynamoDB's TTL reads them.
pub fn condition_expired<E>(attribute: &'static str, now: i64) -> Condition<E> {
    Condition::attribute_at_most(attribute, AttributeValue::N(now.to_string()))
}

/// Equality on a raw attribute (the identity filter).
pub fn condition_equals<E>(attribute: &str, value: AttributeValue) -> Condition<E> {
    Condition::attribute_equals(attribute, value)
}

/// `SET attribute = if_not_exists(source, value)` for an attribute the
/// framework maintains: `source` as it was before the update, or `value`.
pub fn update_copy_raw_or<E>(
    update: Update<E>,
    attribute: &str,
    source: &'static str,
    value: AttributeValue,
) -> Update<E> {
    update.copy_raw_or(attribute, source, value)
}

/// `SET attribute = value` for an attribute the framework maintains.
pub fn update_set_raw<E>(update: Update<E>, attribute: &str, value: AttributeValue) -> Update<E> {
    update.set_raw(attribute, value)
}

/// `SET attribute = if_not_exists(attribute, value)` for an attribute the
/// framework maintains.
pub fn update_set_raw_if_not_exists<E>(
    update: Update<E>,
    attribute: &str,
    value: AttributeValue,
) -> Update<E> {
    update.set_raw_if_not_exists(attribute, value)
}

/// `SET attribute = if_not_exists(attribute, 0) + n` for an attribute the
/// framework maintains (the optimistic-lock version).
pub fn update_add_raw<E>(update: Update<E>, attribute: &str, n: AttributeValue) -> Update<E> {
    update.add_raw(attribute, n)
}

/// Sets the sharded index keys `update`'s group setters recomposed, each in
/// the shard the item's table key (`pk`, `sk`: empty when the table has no
/// sort key) picks.
pub fn resolve_shard_keys<E>(update: Update<E>, pk: &str, sk: &str) -> Update<E> {
    update.resolve_shard_keys(pk, sk)
}

/// `REMOVE attribute` for an attribute the framework maintains.
pub fn update_remove_raw<E>(update: Update<E>, attribute: &'static str) -> Update<E> {
    update.remove_raw(attribute)
}

/// The builder steps of a group setter's [`IndexChange`].
pub trait IndexChangeSteps: Sized {
    /// An empty change.
    fn start() -> Self;
    /// Sets a field from a key argument (`&str` or `String` for a `String`).
    fn with_field<T: KeyPart>(self, attribute: &str, value: &impl crate::KeyArg<T>) -> Self;
    /// Sets a recomposed key.
    fn with_key(self, attribute: &str, key: String) -> Self;
    /// Sets a recomposed sharded partition key from its unsharded text; the
    /// table key of the item updated picks the shard when it is sent.
    fn with_shard_key(self, attribute: &str, base: String, spec: crate::key::ShardSpec) -> Self;
    /// Requires a table key composite to hold the value given.
    fn with_guard<T: KeyPart>(self, attribute: &str, value: &impl crate::KeyArg<T>) -> Self;
    /// Sets an optional composite, or removes it for `None`.
    fn with_optional_field<T: KeyPart>(
        self,
        attribute: &'static str,
        value: &Option<impl crate::KeyArg<T>>,
    ) -> Self;
    /// Removes a key of a sparse index the item leaves.
    fn without_key(self, attribute: &'static str) -> Self;
    /// Requires an optional fixed composite to hold the value given, or to
    /// be absent for `None`.
    fn with_optional_guard<T: KeyPart>(
        self,
        attribute: &'static str,
        value: &Option<impl crate::KeyArg<T>>,
    ) -> Self;
}

impl<E> IndexChangeSteps for IndexChange<E> {
    fn start() -> Self {
        IndexChange::new()
    }
    fn with_field<T: KeyPart>(self, attribute: &str, value: &impl crate::KeyArg<T>) -> Self {
        IndexChange::field(self, attribute, present(value.to_attribute_arg()))
    }
    fn with_key(self, attribute: &str, key: String) -> Self {
        IndexChange::key(self, attribute, key)
    }
    fn with_shard_key(self, attribute: &str, base: String, spec: crate::key::ShardSpec) -> Self {
        IndexChange::shard_key(self, attribute, base, spec)
    }
    fn with_guard<T: KeyPart>(self, attribute: &str, value: &impl crate::KeyArg<T>) -> Self {
        IndexChange::guard(self, attribute, present(value.to_attribute_arg()))
    }
    fn with_optional_field<T: KeyPart>(
        self,
        attribute: &'static str,
        value: &Option<impl crate::KeyArg<T>>,
    ) -> Self {
        match value {
            Some(value) => IndexChangeSteps::with_field::<T>(self, attribute, value),
            None => IndexChange::remove(self, attribute),
        }
    }
    fn without_key(self, attribute: &'static str) -> Self {
        IndexChange::remove(self, attribute)
    }
    fn with_optional_guard<T: KeyPart>(
        self,
        attribute: &'static str,
        value: &Option<impl crate::KeyArg<T>>,
    ) -> Self {
        match value {
            Some(value) => IndexChangeSteps::with_guard::<T>(self, attribute, value),
            None => IndexChange::guard_absent(self, attribute),
        }
    }
}

fn present(
    value: Result<Option<AttributeValue>, AttributeError>,
) -> Result<AttributeValue, AttributeError> {
    value.map(|v| v.unwrap_or(AttributeValue::Null(true)))
}

/// A borrowed key argument, itself a key argument: a group setter passes
/// each of its arguments to several key composers.
pub struct ArgRef<'a, A: ?Sized>(pub &'a A);

impl<T: KeyPart, A: crate::KeyArg<T> + ?Sized> crate::KeyArg<T> for ArgRef<'_, A> {
    #[inline]
    fn encode_arg(&self, out: &mut String) {
        self.0.encode_arg(out)
    }
    #[inline]
    fn arg_len_hint(&self) -> usize {
        self.0.arg_len_hint()
    }
    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.0.to_attribute_arg()
    }
}

/// A key argument whose text is case-folded (`value_casing = "lower"` or
/// `"upper"` on a key): what tables written by tools that fold values
/// (ElectroDB lowercases them) hold. Lossy on purpose. Escapes (`%XX`) keep
/// their hex digits, so the key still parses.
pub struct FoldedArg<'a, A: ?Sized> {
    arg: &'a A,
    upper: bool,
}

impl<'a, A: ?Sized> FoldedArg<'a, A> {
    /// Lowercases `arg`'s key text.
    pub fn lower(arg: &'a A) -> Self {
        Self { arg, upper: false }
    }
    /// Uppercases `arg`'s key text.
    pub fn upper(arg: &'a A) -> Self {
        Self { arg, upper: true }
    }
}

impl<T: KeyPart, A: crate::KeyArg<T> + ?Sized> crate::KeyArg<T> for FoldedArg<'_, A> {
    fn encode_arg(&self, out: &mut String) {
        let mut text = String::with_capacity(self.arg.arg_len_hint());
        self.arg.encode_arg(&mut text);
        let mut escape = 0;
        for c in text.chars() {
            if escape > 0 {
                escape -= 1;
                out.push(c);
            } else if c == '%' {
                escape = 2;
                out.push(c);
            } else if self.upper {
                out.extend(c.to_uppercase());
            } else {
                out.extend(c.to_lowercase());
            }
        }
    }
    #[inline]
    fn arg_len_hint(&self) -> usize {
        self.arg.arg_len_hint()
    }
    fn to_attribute_arg(&self) -> Result<Option<AttributeValue>, AttributeError> {
        self.arg.to_attribute_arg()
    }
}

/// A key type whose text, case-folded, still parses: strings (which parse
/// back folded), integers and `bool`. Timestamps and enums would not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a composite of a key with `value_casing`: its folded key text would not parse back",
    label = "this composite is in a key with `value_casing`",
    note = "`value_casing` folds strings, integers and `bool`; keep this composite in a key without it, or store it as a `String`"
)]
pub trait FoldsCase: KeyPart {}

impl FoldsCase for String {}
impl FoldsCase for bool {}
macro_rules! folds_case {
    ($($t:ty),*) => { $(impl FoldsCase for $t {})* };
}
folds_case!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// Proves at compile time, with the error on the composite, that a key
/// with `value_casing` can fold it.
#[inline(always)]
pub const fn assert_folds_case<T: FoldsCase>() {}

/// Proves, with the error on the field's type, that a `created_at` or
/// `updated_at` field can hold a timestamp the client writes.
#[inline(always)]
pub const fn assert_timestamp<T: crate::Timestamp>() {}

/// Proves, with the error on the field's type, that a `version` field can
/// be an optimistic-lock version.
#[inline(always)]
pub const fn assert_lock_version<T: crate::LockVersion>() {}

/// Proves, with the error on the field's type, that a `generate` field can
/// hold a generated id.
#[inline(always)]
pub const fn assert_generated_id<T: crate::GeneratedId>() {}

/// Composes a unique constraint's value, for the generated `by_*` lookups
/// (which `Entity::unique_values` calls, so the text has one composer):
/// each field's key text, joined by the key separator, strings lowercased
/// first in a case-insensitive constraint.
pub struct UniqueValue {
    text: String,
    parts: usize,
}

impl UniqueValue {
    /// No fields yet.
    #[inline]
    pub fn start() -> Self {
        UniqueValue {
            text: String::new(),
            parts: 0,
        }
    }

    /// Appends a field's key text. Key text never holds a raw separator, so
    /// the joined values of two different tuples differ.
    #[inline]
    pub fn part<T: KeyPart>(mut self, value: &impl crate::KeyArg<T>) -> Self {
        if self.parts > 0 {
            self.text.push(crate::key::SEPARATOR);
        }
        self.parts += 1;
        value.encode_arg(&mut self.text);
        self
    }

    /// Appends a string field's key text, lowercased character by
    /// character. (That is lowercasing the string before escaping it: no
    /// character lowercases to an escaped one, and escapes keep their hex
    /// digits.)
    #[inline]
    pub fn folded<T: KeyPart>(self, value: &impl crate::KeyArg<T>) -> Self {
        self.part::<T>(&FoldedArg::lower(value))
    }

    /// The composed value.
    #[inline]
    pub fn finish(self) -> String {
        self.text
    }
}

/// Proves, with the error on the field's type, that a `ttl` field's value
/// (`T` of `Option<T>`) can be stored as epoch seconds.
#[inline(always)]
pub const fn assert_ttl_value<T: crate::TtlValue>() {}

/// A type a `deleted_at` field can have: an `Option` of a [`Timestamp`]
/// (a live item has no deletion time).
///
/// [`Timestamp`]: crate::Timestamp
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold the time an item was soft-deleted",
    label = "this field is `#[entity(deleted_at)]`, so its type must be an `Option` of a `Timestamp` type",
    note = "use `Option<chrono::DateTime<Utc>>` (feature `chrono`), `Option<time::OffsetDateTime>` (feature `time`), `Option<entity_core::EpochSeconds>` or `Option<entity_core::EpochMillis>`"
)]
pub trait DeletedAt: crate::Timestamp {}

// One impl per type, not one for every `Option<T: Timestamp>`: then the
// error on a wrong type is this trait's, which names `deleted_at`.
impl DeletedAt for Option<crate::EpochSeconds> {}
impl DeletedAt for Option<crate::EpochMillis> {}
#[cfg(feature = "chrono")]
impl DeletedAt for Option<chrono::DateTime<chrono::Utc>> {}
#[cfg(feature = "time")]
impl DeletedAt for Option<time::OffsetDateTime> {}

/// Proves, with the error on the field's type, that a `deleted_at` field
/// can hold the deletion time.
#[inline(always)]
pub const fn assert_deleted_at<T: DeletedAt>() {}

/// Writes a `ttl` field: a number of epoch seconds (`N`), which DynamoDB's
/// TTL reads, whatever the field's type.
#[inline]
pub fn put_ttl<T: crate::TtlValue>(item: &mut ItemWriter, attribute: &'static str, value: &T) {
    item.put(
        attribute,
        AttributeValue::N(value.to_epoch_seconds().to_string()),
    );
}

/// Writes an optional `ttl` field (`None`: no attribute, no expiry).
#[inline]
pub fn put_optional_ttl<T: crate::TtlValue>(
    item: &mut ItemWriter,
    attribute: &'static str,
    value: &Option<T>,
) {
    if let Some(value) = value {
        put_ttl(item, attribute, value);
    }
}

/// Reads a `ttl` field from its epoch seconds.
#[inline]
pub fn read_ttl<T: crate::TtlValue>(
    value: Option<AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, DecodeError> {
    let fail = |source| DecodeError::Attribute {
        entity,
        attribute,
        source,
    };
    let value = value.ok_or_else(|| fail(AttributeError::Missing))?;
    let AttributeValue::N(text) = &value else {
        return Err(fail(AttributeError::WrongType {
            expected: "N",
            found: crate::attr::type_name(&value),
        }));
    };
    let seconds: i64 = text.parse().map_err(|_| {
        fail(AttributeError::Invalid(format!(
            "time to live `{text}` is not a whole number of epoch seconds"
        )))
    })?;
    T::from_epoch_seconds(seconds).ok_or_else(|| {
        fail(AttributeError::Invalid(format!(
            "time to live {seconds} is out of the field type's range"
        )))
    })
}

/// Reads an optional `ttl` field: no attribute (or `NULL`) is `None`.
#[inline]
pub fn read_optional_ttl<T: crate::TtlValue>(
    value: Option<AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<Option<T>, DecodeError> {
    match value {
        None | Some(AttributeValue::Null(_)) => Ok(None),
        value => read_ttl(value, entity, attribute).map(Some),
    }
}

/// What `#[derive(Entity)]` tells the client about its impl
/// ([`Entity::__DERIVED`]).
pub struct Derived<T> {
    /// `write_item` writes every key attribute through the writer's key
    /// functions, and nothing else under a key attribute's name: a client's
    /// checking writer knows the keys without reading the item back.
    pub composed_keys: bool,
    /// `Clone::clone`, when the type is `Clone`: a write of an entity
    /// stored just as it converts hands back a copy of the caller's value
    /// rather than decoding the item it wrote.
    pub copy: Option<fn(&T) -> T>,
}

impl<T> Derived<T> {
    /// A hand-written `Entity`: its items are read back and checked, and a
    /// write hands back the entity decoded from the item it wrote.
    pub const HAND_WRITTEN: Self = Self {
        composed_keys: false,
        copy: None,
    };
}

/// `CloneProbe::<T>::__ENTITY_DERIVED` is the derive's [`Derived`], with `copy`
/// `Some(T::clone)` when `T: Clone` (this inherent constant) and `None`
/// otherwise ([`NotClone`]'s, which a path reaches only when the inherent
/// one does not apply). The derive brings `NotClone` into scope. It tells
/// only of a concrete `T`: where `T` is generic the bound cannot be proven
/// and the fallback applies (derived entities are never generic).
pub struct CloneProbe<T>(std::marker::PhantomData<T>);

impl<T: Clone> CloneProbe<T> {
    pub const __ENTITY_DERIVED: Derived<T> = Derived {
        composed_keys: true,
        copy: Some(T::clone),
    };
}

/// The fallback of [`CloneProbe`]: no copy.
pub trait NotClone<T> {
    const __ENTITY_DERIVED: Derived<T> = Derived {
        composed_keys: true,
        copy: None,
    };
}

impl<T> NotClone<T> for CloneProbe<T> {}
