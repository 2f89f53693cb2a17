//! The query model: what a typed index accessor produces.
//!
//! A [`Query`] is a plain value holding everything a DynamoDB Query request
//! needs (index, key condition with `#name`/`:value` placeholders, the names
//! and values, order, limit), so accessors are testable with no server.
//!
//! Sort-key conditions act on the composed key text. That is value order for
//! numbers, bools and timestamps, and for strings too, for every Rust
//! string (see [`crate::key::escape_into`]); for enums it is the order of
//! the stored variant names, not declaration order. A range on one
//! composite is kept inside the fixed prefix with `BETWEEN`, so it never
//! reads another composite's or entity's items; and since every encoded
//! value character sorts above the separator, a range on a composite that
//! more of the key follows is exact too. Strict bounds become inclusive
//! ones by taking the next string after (`x` + `\0`) or the last string
//! before (`x` with its last character decremented, then U+10FFFF); and
//! "every key that starts with `x`" ends at `x` + U+10FFFF. Both are exact
//! because no encoded value holds U+10FFFF (it is escaped). A sort key that
//! starts with a bare field has no fixed prefix; its ranges use plain
//! comparisons and the client's identity filter drops other entities' items.

use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;
use std::marker::PhantomData;

/// The smallest character, appended to make "just after `x`".
const NEXT_AFTER: char = '\0';
/// The largest character, appended to make "just before `x`" and "after
/// every key that extends `x`": no encoded value holds it.
const LAST_BEFORE: char = char::MAX;

/// A sort key condition on composed key text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortCondition {
    /// `sk = :sk1`
    Eq(String),
    /// `begins_with(sk, :sk1)`
    BeginsWith(String),
    /// `sk BETWEEN :sk1 AND :sk2` (both inclusive)
    Between(String, String),
    /// `sk < :sk1`
    Lt(String),
    /// `sk <= :sk1`
    Le(String),
    /// `sk > :sk1`
    Gt(String),
    /// `sk >= :sk1`
    Ge(String),
    /// No key can match (an empty range, such as `between(5, 3)`). The
    /// client answers it without a request.
    Nothing,
}

impl SortCondition {
    /// Whether a sort key value satisfies the condition (the client checks
    /// cursors with it).
    pub fn matches(&self, key: &str) -> bool {
        match self {
            SortCondition::Eq(v) => key == v,
            SortCondition::BeginsWith(v) => key.starts_with(v.as_str()),
            SortCondition::Between(low, high) => low.as_str() <= key && key <= high.as_str(),
            SortCondition::Lt(v) => key < v.as_str(),
            SortCondition::Le(v) => key <= v.as_str(),
            SortCondition::Gt(v) => key > v.as_str(),
            SortCondition::Ge(v) => key >= v.as_str(),
            SortCondition::Nothing => false,
        }
    }
}

/// A Query against one index of one entity, ready to send.
///
/// Built by the generated accessors (`Task::by_project(..)`); read by the
/// client. Everything is reachable without a server:
///
/// ```
/// use entity_core::{Query, SortCondition};
///
/// struct Task;
/// let q: Query<Task> = Query::new(Some("gsi1"), "gsi1pk", "$app#v1#task#projectid_p1".into())
///     .with_sort("gsi1sk", SortCondition::BeginsWith("$app#v1#task#priority_".into()))
///     .descending()
///     .limit(10);
/// assert_eq!(q.index_name(), Some("gsi1"));
/// assert_eq!(q.key_condition_expression(), "#pk = :pk AND begins_with(#sk, :sk1)");
/// assert_eq!(q.expression_attribute_names()["#sk"], "gsi1sk");
/// assert!(!q.scan_index_forward());
/// assert_eq!(q.get_limit(), Some(10));
/// ```
pub struct Query<E> {
    index_name: Option<&'static str>,
    pk_attribute: &'static str,
    pk: String,
    sort: Option<(&'static str, SortCondition)>,
    /// A multi-attribute GSI's key condition, one clause per attribute;
    /// empty for a composed key (then `pk` and `sort` hold it).
    native: Vec<NativeCondition>,
    ascending: bool,
    limit: Option<u32>,
    /// A sharded partition: `pk` is its unsharded text, and the client
    /// reads every shard.
    sharding: Option<Sharding>,
    entity: PhantomData<fn() -> E>,
}

/// What a query of a sharded partition needs: how shard keys are made, and
/// the key attributes the client merges and resumes by.
///
/// ```
/// use entity_core::key::ShardSpec;
/// use entity_core::Sharding;
/// use entity_core::Query;
///
/// struct Task;
/// let spec = ShardSpec { count: 4, label: "#shard_", width: 1 };
/// let q: Query<Task> = Query::new(Some("gsi1"), "gsi1pk", "$app#v1#task#status_Open".into())
///     .sharded(Sharding { spec, sort_attribute: Some("gsi1sk"), table_keys: ("pk", Some("sk")) });
/// assert_eq!(q.shard_count(), Some(4));
/// assert_eq!(q.shard(3).partition_key(), ("gsi1pk", "$app#v1#task#status_Open#shard_3"));
/// assert_eq!(q.shard(3).shard_count(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sharding {
    /// The shard count and suffix.
    pub spec: crate::key::ShardSpec,
    /// The index's sort key attribute, which orders the merged results
    /// (`None`: the index has no sort key; results come shard by shard).
    pub sort_attribute: Option<&'static str>,
    /// The table's partition and sort key attributes: with the index's,
    /// the key a shard's read resumes after.
    pub table_keys: (&'static str, Option<&'static str>),
}

/// One clause of a multi-attribute key condition: an attribute compared
/// with native values (`S`, `N` or `B`).
#[derive(Debug, Clone, PartialEq)]
pub struct NativeCondition {
    /// The key attribute.
    pub attribute: &'static str,
    /// The comparison.
    pub op: NativeOp,
    /// One value, or two for `Between`.
    pub values: Vec<AttributeValue>,
}

/// A comparison in a multi-attribute key condition. Every partition
/// attribute and a leading run of sort attributes take `Eq`; only the last
/// sort attribute given may take another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeOp {
    /// `#a = :a`
    Eq,
    /// `#a < :a`
    Lt,
    /// `#a <= :a`
    Le,
    /// `#a > :a`
    Gt,
    /// `#a >= :a`
    Ge,
    /// `#a BETWEEN :a AND :a_high`
    Between,
    /// `begins_with(#a, :a)`
    BeginsWith,
}

impl<E> std::fmt::Debug for Query<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("entity", &std::any::type_name::<E>())
            .field("index_name", &self.index_name)
            .field("pk", &(self.pk_attribute, &self.pk))
            .field("sort", &self.sort)
            .field("native", &self.native)
            .field("ascending", &self.ascending)
            .field("limit", &self.limit)
            .field("sharding", &self.sharding)
            .finish()
    }
}

impl<E> Clone for Query<E> {
    fn clone(&self) -> Self {
        Self {
            index_name: self.index_name,
            pk_attribute: self.pk_attribute,
            pk: self.pk.clone(),
            sort: self.sort.clone(),
            native: self.native.clone(),
            ascending: self.ascending,
            limit: self.limit,
            sharding: self.sharding,
            entity: PhantomData,
        }
    }
}

impl<E> PartialEq for Query<E> {
    fn eq(&self, other: &Self) -> bool {
        (
            self.index_name,
            self.pk_attribute,
            &self.pk,
            &self.sort,
            &self.native,
            self.ascending,
            self.limit,
            self.sharding,
        ) == (
            other.index_name,
            other.pk_attribute,
            &other.pk,
            &other.sort,
            &other.native,
            other.ascending,
            other.limit,
            other.sharding,
        )
    }
}

impl<E> Query<E> {
    /// The same query, typed as reading `F` (a view's query as its
    /// entity's, for the client's scope).
    #[doc(hidden)]
    pub fn cast<F>(self) -> Query<F> {
        Query {
            index_name: self.index_name,
            pk_attribute: self.pk_attribute,
            pk: self.pk,
            sort: self.sort,
            native: self.native,
            ascending: self.ascending,
            limit: self.limit,
            sharding: self.sharding,
            entity: PhantomData,
        }
    }

    /// A query on one partition, with no sort key condition.
    pub fn new(index_name: Option<&'static str>, pk_attribute: &'static str, pk: String) -> Self {
        Self {
            index_name,
            pk_attribute,
            pk,
            sort: None,
            native: Vec::new(),
            ascending: true,
            limit: None,
            sharding: None,
            entity: PhantomData,
        }
    }

    /// A query on a multi-attribute GSI: equality on each partition
    /// attribute, in key order.
    ///
    /// ```
    /// use entity_core::Query;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    ///
    /// struct Order;
    /// let q: Query<Order> = Query::multi_attribute(
    ///     "gsi3",
    ///     vec![("tenant_id", AttributeValue::S("t1".into())), ("region", AttributeValue::S("eu".into()))],
    /// );
    /// assert_eq!(q.key_condition_expression(), "#k0 = :k0 AND #k1 = :k1");
    /// assert_eq!(q.expression_attribute_names()["#k1"], "region");
    /// ```
    pub fn multi_attribute(
        index_name: &'static str,
        partition: Vec<(&'static str, AttributeValue)>,
    ) -> Self {
        let mut query = Self::new(Some(index_name), "", String::new());
        for (attribute, value) in partition {
            query.native.push(NativeCondition {
                attribute,
                op: NativeOp::Eq,
                values: vec![value],
            });
        }
        query
    }

    /// Whether this queries a multi-attribute GSI: the key condition is
    /// [`Query::native_conditions`], not the partition key and sort condition.
    pub fn is_multi_attribute(&self) -> bool {
        !self.native.is_empty()
    }

    /// A multi-attribute key condition's clauses, in key order.
    pub fn native_conditions(&self) -> &[NativeCondition] {
        &self.native
    }

    /// Reads a sharded partition: `pk` (given to [`Query::new`]) is the
    /// partition's unsharded text, and the client queries every shard
    /// concurrently and merges their results in sort key order.
    pub fn sharded(mut self, sharding: Sharding) -> Self {
        self.sharding = Some(sharding);
        self
    }

    /// The sharding of a sharded partition's query.
    pub fn sharding(&self) -> Option<&Sharding> {
        self.sharding.as_ref()
    }

    /// How many shards the query reads (`None`: one unsharded partition).
    pub fn shard_count(&self) -> Option<u16> {
        self.sharding.map(|s| s.spec.count)
    }

    /// The query of shard `shard` alone: its partition key carries the
    /// shard suffix, and it is not sharded.
    pub fn shard(&self, shard: u16) -> Self {
        let mut query = self.clone();
        if let Some(sharding) = query.sharding.take() {
            query.pk = sharding.spec.key(&self.pk, shard);
        }
        query
    }

    /// Adds a sort key condition.
    pub fn with_sort(mut self, sk_attribute: &'static str, condition: SortCondition) -> Self {
        self.sort = Some((sk_attribute, condition));
        self
    }

    /// Newest (largest sort key) first.
    pub fn descending(mut self) -> Self {
        self.ascending = false;
        self
    }

    /// Smallest sort key first (the default).
    pub fn ascending(mut self) -> Self {
        self.ascending = true;
        self
    }

    /// At most `limit` items.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// The physical index, `None` for the table.
    pub fn index_name(&self) -> Option<&'static str> {
        self.index_name
    }

    /// The composed partition key.
    pub fn partition_key(&self) -> (&'static str, &str) {
        (self.pk_attribute, &self.pk)
    }

    /// The sort key attribute and condition, if any.
    pub fn sort_condition(&self) -> Option<(&'static str, &SortCondition)> {
        self.sort
            .as_ref()
            .map(|(attribute, condition)| (*attribute, condition))
    }

    /// `ScanIndexForward`.
    pub fn scan_index_forward(&self) -> bool {
        self.ascending
    }

    /// `Limit`.
    pub fn get_limit(&self) -> Option<u32> {
        self.limit
    }

    /// True when no item can match; the client sends nothing.
    pub fn matches_nothing(&self) -> bool {
        matches!(self.sort, Some((_, SortCondition::Nothing)))
    }

    /// `KeyConditionExpression`, with placeholders only.
    pub fn key_condition_expression(&self) -> String {
        if self.is_multi_attribute() {
            return self.native_key_condition();
        }
        let sort = match &self.sort {
            None | Some((_, SortCondition::Nothing)) => return "#pk = :pk".to_owned(),
            Some((_, condition)) => condition,
        };
        let tail = match sort {
            SortCondition::Eq(_) => "#sk = :sk1",
            SortCondition::BeginsWith(_) => "begins_with(#sk, :sk1)",
            SortCondition::Between(..) => "#sk BETWEEN :sk1 AND :sk2",
            SortCondition::Lt(_) => "#sk < :sk1",
            SortCondition::Le(_) => "#sk <= :sk1",
            SortCondition::Gt(_) => "#sk > :sk1",
            SortCondition::Ge(_) => "#sk >= :sk1",
            SortCondition::Nothing => unreachable!("handled above"),
        };
        format!("#pk = :pk AND {tail}")
    }

    /// `ExpressionAttributeNames`.
    pub fn expression_attribute_names(&self) -> HashMap<String, String> {
        if self.is_multi_attribute() {
            return (self.native.iter().enumerate())
                .map(|(i, c)| (format!("#k{i}"), c.attribute.to_owned()))
                .collect();
        }
        let mut names = HashMap::with_capacity(2);
        names.insert("#pk".to_owned(), self.pk_attribute.to_owned());
        if let Some((attribute, condition)) = &self.sort {
            if *condition != SortCondition::Nothing {
                names.insert("#sk".to_owned(), (*attribute).to_owned());
            }
        }
        names
    }

    /// `ExpressionAttributeValues`.
    pub fn expression_attribute_values(&self) -> HashMap<String, AttributeValue> {
        if self.is_multi_attribute() {
            let mut values = HashMap::new();
            for (i, c) in self.native.iter().enumerate() {
                for (j, value) in c.values.iter().enumerate() {
                    let suffix = if j == 0 { "" } else { "_high" };
                    values.insert(format!(":k{i}{suffix}"), value.clone());
                }
            }
            return values;
        }
        let mut values = HashMap::with_capacity(3);
        values.insert(":pk".to_owned(), AttributeValue::S(self.pk.clone()));
        let (first, second) = match self.sort.as_ref().map(|(_, c)| c) {
            None | Some(SortCondition::Nothing) => (None, None),
            Some(SortCondition::Between(lo, hi)) => (Some(lo), Some(hi)),
            Some(
                SortCondition::Eq(v)
                | SortCondition::BeginsWith(v)
                | SortCondition::Lt(v)
                | SortCondition::Le(v)
                | SortCondition::Gt(v)
                | SortCondition::Ge(v),
            ) => (Some(v), None),
        };
        if let Some(v) = first {
            values.insert(":sk1".to_owned(), AttributeValue::S(v.clone()));
        }
        if let Some(v) = second {
            values.insert(":sk2".to_owned(), AttributeValue::S(v.clone()));
        }
        values
    }
}

impl<E> Query<E> {
    /// `#k0 = :k0 AND #k1 = :k1 AND #k2 > :k2`: one clause per attribute.
    fn native_key_condition(&self) -> String {
        let clauses: Vec<String> = (self.native.iter().enumerate())
            .map(|(i, c)| match c.op {
                NativeOp::Eq => format!("#k{i} = :k{i}"),
                NativeOp::Lt => format!("#k{i} < :k{i}"),
                NativeOp::Le => format!("#k{i} <= :k{i}"),
                NativeOp::Gt => format!("#k{i} > :k{i}"),
                NativeOp::Ge => format!("#k{i} >= :k{i}"),
                NativeOp::Between => format!("#k{i} BETWEEN :k{i} AND :k{i}_high"),
                NativeOp::BeginsWith => format!("begins_with(#k{i}, :k{i})"),
            })
            .collect();
        clauses.join(" AND ")
    }
}

/// A comparison on the next sort key composite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Comparison {
    Gt,
    Ge,
    Lt,
    Le,
}

/// One end of a range on key text.
type Bound = (String, bool);

/// The builder behind the generated, typed accessor stages.
///
/// It holds the composed partition key and the sort key text fixed so far:
/// the literal prefix, the composites given left to right, and the label of
/// the next composite. Generated code only calls it with the right types in
/// the right order; it is public for that code, not for direct use.
///
/// `I` is the access pattern, a marker type the derive names after it
/// (`TaskByProject`): the stage types of one entity's accessors differ by
/// it, and rustc's messages name it.
#[doc(hidden)]
pub struct KeyQuery<E, I = ()> {
    query: Query<E>,
    sk_attribute: Option<&'static str>,
    /// The sort key text fixed so far (`B`).
    prefix: String,
    /// All sort key composites are fixed: `prefix` is the whole key.
    complete: bool,
    index: PhantomData<fn() -> I>,
}

/// Named as the access pattern's stage type (`TaskByProjectQuery`).
impl<E, I> std::fmt::Debug for KeyQuery<E, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let index = std::any::type_name::<I>().rsplit("::").next();
        f.debug_struct(&format!("{}Query", index.unwrap_or_default()))
            .field("query", &self.query)
            .field("prefix", &self.prefix)
            .field("complete", &self.complete)
            .finish()
    }
}

impl<E, I> KeyQuery<E, I> {
    /// Starts a query. `prefix` is the sort key text before the first
    /// composite's value (or the whole key when `complete`).
    pub fn new(
        query: Query<E>,
        sk_attribute: Option<&'static str>,
        prefix: &str,
        complete: bool,
    ) -> Self {
        Self {
            query,
            sk_attribute,
            prefix: prefix.to_owned(),
            complete,
            index: PhantomData,
        }
    }

    /// The sort key text fixed so far.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Fixes the next composite to its key text `value`, then appends the
    /// text up to the following composite's value.
    pub fn fix_text(mut self, value: &str, then: &str, complete: bool) -> Self {
        self.prefix.push_str(value);
        self.prefix.push_str(then);
        self.complete = complete;
        self
    }

    /// Fixes the next sort attribute of a multi-attribute key.
    pub fn native_eq(mut self, attribute: &'static str, value: AttributeValue) -> Self {
        self.query.native.push(NativeCondition {
            attribute,
            op: NativeOp::Eq,
            values: vec![value],
        });
        self
    }

    /// Ends a multi-attribute key condition with a comparison on the next
    /// sort attribute.
    pub fn native_compare(
        mut self,
        attribute: &'static str,
        op: NativeOp,
        values: Vec<AttributeValue>,
    ) -> Query<E> {
        self.query.native.push(NativeCondition {
            attribute,
            op,
            values,
        });
        self.query
    }

    /// Sort order.
    pub fn ascending(mut self, ascending: bool) -> Self {
        self.query.ascending = ascending;
        self
    }

    /// At most `limit` items in all.
    pub fn limit(mut self, limit: u32) -> Self {
        self.query.limit = Some(limit);
        self
    }

    fn with(self, condition: SortCondition) -> Query<E> {
        match self.sk_attribute {
            Some(attribute) => self.query.with_sort(attribute, condition),
            None => self.query,
        }
    }

    /// The composites fixed so far: an exact key when all are fixed, a
    /// `begins_with` on the prefix otherwise (none when the prefix is empty).
    pub fn finish(self) -> Query<E> {
        if self.complete {
            let key = self.prefix.clone();
            self.with(SortCondition::Eq(key))
        } else if self.prefix.is_empty() {
            self.query
        } else {
            let prefix = self.prefix.clone();
            self.with(SortCondition::BeginsWith(prefix))
        }
    }

    /// `begins_with` on `text` (the prefix, then the next composite's
    /// partial text).
    pub fn begins_with_text(self, text: String) -> Query<E> {
        self.with(SortCondition::BeginsWith(text))
    }

    /// A comparison with composed text (a whole sort key, when `last`).
    pub fn compare_text(self, op: Comparison, text: String, last: bool) -> Query<E> {
        match op {
            Comparison::Gt | Comparison::Ge => {
                let low = lower_bound(op, text, last);
                self.range(Some(low), None)
            }
            Comparison::Lt | Comparison::Le => {
                let high = upper_bound(op, text, last);
                self.range(None, Some(high))
            }
        }
    }

    /// Both ends inclusive, with composed text.
    pub fn between_text(self, low: String, high: String, last: bool) -> Query<E> {
        let low = lower_bound(Comparison::Ge, low, last);
        let high = upper_bound(Comparison::Le, high, last);
        self.range(Some(low), Some(high))
    }

    fn range(self, low: Option<Bound>, high: Option<Bound>) -> Query<E> {
        if self.prefix.is_empty() {
            // No fixed prefix: native comparisons stay exact.
            let condition = match (low, high) {
                (Some((v, true)), None) => SortCondition::Ge(v),
                (Some((v, false)), None) => SortCondition::Gt(v),
                (None, Some((v, true))) => SortCondition::Le(v),
                (None, Some((v, false))) => SortCondition::Lt(v),
                (low, high) => inclusive_range(low, high, None),
            };
            return self.with(condition);
        }
        let condition = inclusive_range(low, high, Some(&self.prefix));
        self.with(condition)
    }
}

fn lower_bound(op: Comparison, text: String, last: bool) -> Bound {
    match (op, last) {
        (Comparison::Gt, true) => (text, false),
        // A composite that is followed by more of the key: every key with this
        // value continues with `#`; `$`, the next character, is in no encoded
        // value, and every greater value's key continues above it.
        (Comparison::Gt, false) => (text + "$", true),
        _ => (text, true),
    }
}

fn upper_bound(op: Comparison, text: String, last: bool) -> Bound {
    match (op, last) {
        (Comparison::Le, true) => (text, true),
        (Comparison::Le, false) => (text + "$", false),
        _ => (text, false),
    }
}

/// Turns two bounds into one inclusive `BETWEEN`, filling a missing end from
/// `prefix` (the range of keys that start with it).
fn inclusive_range(low: Option<Bound>, high: Option<Bound>, prefix: Option<&str>) -> SortCondition {
    let low = match low {
        Some((text, true)) => text,
        Some((mut text, false)) => {
            text.push(NEXT_AFTER);
            text
        }
        None => prefix.unwrap_or_default().to_owned(),
    };
    let high = match high {
        Some((text, true)) => Some(text),
        Some((text, false)) => just_before(&text),
        None => prefix.map(just_after_prefix),
    };
    match high {
        Some(high) if low <= high => SortCondition::Between(low, high),
        _ => SortCondition::Nothing,
    }
}

/// The last string before `text`, close enough for key ranges: `text` with
/// its last character decremented, then the largest character.
fn just_before(text: &str) -> Option<String> {
    let mut out = text.to_owned();
    let last = out.pop()?;
    if last == NEXT_AFTER {
        return Some(out);
    }
    let previous = (0..u32::from(last)).rev().find_map(char::from_u32)?;
    out.push(previous);
    out.push(LAST_BEFORE);
    Some(out)
}

/// An inclusive upper bound of every key that starts with `prefix` and of
/// nothing else: `prefix` then U+10FFFF, which no key holds (encoded values
/// escape it; literal key text is checked not to hold it).
fn just_after_prefix(prefix: &str) -> String {
    let mut out = prefix.to_owned();
    out.push(LAST_BEFORE);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(prefix: &str) -> KeyQuery<()> {
        KeyQuery::new(
            Query::new(None, "pk", "p".into()),
            Some("sk"),
            prefix,
            false,
        )
    }

    fn sort(q: Query<()>) -> SortCondition {
        q.sort_condition().unwrap().1.clone()
    }

    #[test]
    fn ranges_stay_inside_the_prefix() {
        let q = start("t#priority_").compare_text(Comparison::Gt, "t#priority_005".into(), true);
        assert_eq!(
            sort(q),
            SortCondition::Between(
                "t#priority_005\0".into(),
                format!("t#priority_{}", char::MAX)
            )
        );
        let q = start("t#priority_").compare_text(Comparison::Lt, "t#priority_005".into(), true);
        assert_eq!(
            sort(q),
            SortCondition::Between("t#priority_".into(), format!("t#priority_004{}", char::MAX))
        );
    }

    #[test]
    fn empty_ranges_match_nothing() {
        let q = start("t#p_").between_text("t#p_005".into(), "t#p_003".into(), true);
        assert!(q.matches_nothing());
        let q = start("t#p_").compare_text(Comparison::Lt, "t#p_".into(), true);
        assert!(q.matches_nothing());
    }

    #[test]
    fn no_prefix_uses_native_comparisons() {
        let q = start("").compare_text(Comparison::Ge, "b".into(), true);
        assert_eq!(sort(q), SortCondition::Ge("b".into()));
    }
}
