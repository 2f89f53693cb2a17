//! Conditions (for writes) and filters (for reads) over an entity's fields.

use super::attr::{Attr, Comparable, IntoAttr};
use super::placeholders::Placeholders;
use crate::attr::AttributeError;
use aws_sdk_dynamodb::types::AttributeValue;
use std::marker::PhantomData;

/// A condition on items of entity `E`, built from its field handles:
///
/// ```
/// use entity_core::{Entity, expr::Placeholders};
///
/// #[derive(Entity)]
/// #[entity(schema = "app")]
/// #[pk(id)]
/// struct Doc { id: String, views: u32, title: Option<String> }
///
/// let f = Doc::fields();
/// let condition = f.views.lt(100u32).and(f.title.exists().or(f.title.begins_with("Draft")).not());
/// let mut placeholders = Placeholders::default();
/// let text = condition.render(&mut placeholders).unwrap();
/// assert_eq!(text, "(#n0 < :v0 AND (NOT (attribute_exists(#n1) OR begins_with(#n1, :v1))))");
/// ```
#[derive(Debug)]
pub struct Condition<E> {
    node: Node,
    entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Condition<E> {
    fn clone(&self) -> Self {
        Self {
            node: self.node.clone(),
            entity: PhantomData,
        }
    }
}

#[derive(Debug, Clone)]
enum Node {
    Compare(&'static str, &'static str, Value),
    Between(&'static str, Value, Value),
    In(&'static str, Vec<Value>),
    Function(&'static str, &'static str, Option<Value>),
    Size(&'static str, &'static str, AttributeValue),
    KeyEquals(String, Value),
    KeyFunction(&'static str, String),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
}

type Value = Result<AttributeValue, AttributeError>;

impl<E> Condition<E> {
    fn new(node: Node) -> Self {
        Self {
            node,
            entity: PhantomData,
        }
    }

    /// Both conditions hold.
    pub fn and(self, other: Condition<E>) -> Self {
        Self::new(Node::And(Box::new(self.node), Box::new(other.node)))
    }

    /// Either condition holds.
    pub fn or(self, other: Condition<E>) -> Self {
        Self::new(Node::Or(Box::new(self.node), Box::new(other.node)))
    }

    /// The condition does not hold.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Self::new(Node::Not(Box::new(self.node)))
    }

    /// `attribute_exists` on a raw attribute (key attributes; used by
    /// `create`, `patch` and `remove`).
    pub(crate) fn attribute_exists(attribute: &str) -> Self {
        Self::new(Node::KeyFunction("attribute_exists", attribute.to_owned()))
    }

    /// `attribute_not_exists` on a raw attribute.
    pub(crate) fn attribute_not_exists(attribute: &str) -> Self {
        Self::new(Node::KeyFunction(
            "attribute_not_exists",
            attribute.to_owned(),
        ))
    }

    /// `attribute BETWEEN low AND high` on a raw attribute (guards).
    pub(crate) fn attribute_between(
        attribute: &'static str,
        low: AttributeValue,
        high: AttributeValue,
    ) -> Self {
        Self::new(Node::Between(attribute, Ok(low), Ok(high)))
    }

    /// Equality on a raw attribute (the identity attribute, guards).
    pub(crate) fn attribute_equals(attribute: &str, value: AttributeValue) -> Self {
        Self::attribute_equals_value(attribute, Ok(value))
    }

    /// `attribute <= value` on a raw attribute.
    pub(crate) fn attribute_at_most(attribute: &'static str, value: AttributeValue) -> Self {
        Self::new(Node::Compare(attribute, "<=", Ok(value)))
    }

    /// Equality on a raw attribute with a value that may have failed to
    /// convert (the failure surfaces when the condition renders).
    pub(crate) fn attribute_equals_value(attribute: &str, value: Value) -> Self {
        Self::new(Node::KeyEquals(attribute.to_owned(), value))
    }

    /// Whether the condition holds on an item that does not exist, as
    /// DynamoDB evaluates it there: a comparison with a missing attribute
    /// is false, except `<>`, which is true (nothing is not equal to a
    /// value); `attribute_not_exists` is true and every other function
    /// false. (A write to an entity that soft-deletes evaluates its
    /// caller's condition on a deleted item as on a missing one.)
    ///
    /// ```
    /// # use entity_core::Entity;
    /// # #[derive(Entity)] #[entity(schema = "app")] #[pk(id)] struct Doc { id: String, title: String, views: u32 }
    /// let f = Doc::fields();
    /// assert!(!f.views.lt(10u32).holds_on_missing());
    /// assert!(f.views.ne(10u32).holds_on_missing());
    /// assert!(f.title.exists().not().holds_on_missing());
    /// assert!(!f.title.begins_with("a").or(f.views.eq(1u32)).holds_on_missing());
    /// ```
    pub fn holds_on_missing(&self) -> bool {
        on_missing(&self.node)
    }

    /// The expression text, adding its names and values to `placeholders`.
    /// Fails if a value could not be converted (a NaN, say).
    pub fn render(&self, placeholders: &mut Placeholders) -> Result<String, AttributeError> {
        render(&self.node, placeholders)
    }
}

fn on_missing(node: &Node) -> bool {
    match node {
        Node::Compare(_, op, _) | Node::Size(_, op, _) => *op == "<>",
        Node::Between(..) | Node::In(..) | Node::KeyEquals(..) => false,
        Node::Function(function, ..) => *function == "attribute_not_exists",
        Node::KeyFunction(function, _) => *function == "attribute_not_exists",
        Node::And(a, b) => on_missing(a) && on_missing(b),
        Node::Or(a, b) => on_missing(a) || on_missing(b),
        Node::Not(a) => !on_missing(a),
    }
}

fn value(placeholders: &mut Placeholders, value: &Value) -> Result<String, AttributeError> {
    Ok(placeholders.value(value.clone()?))
}

fn render(node: &Node, p: &mut Placeholders) -> Result<String, AttributeError> {
    Ok(match node {
        Node::Compare(name, op, v) => format!("{} {op} {}", p.name(name), value(p, v)?),
        Node::Between(name, low, high) => {
            format!(
                "{} BETWEEN {} AND {}",
                p.name(name),
                value(p, low)?,
                value(p, high)?
            )
        }
        Node::In(name, values) => {
            let name = p.name(name);
            let list = values
                .iter()
                .map(|v| value(p, v))
                .collect::<Result<Vec<_>, _>>()?;
            format!("{name} IN ({})", list.join(", "))
        }
        Node::Function(function, name, None) => format!("{function}({})", p.name(name)),
        Node::Function(function, name, Some(v)) => {
            format!("{function}({}, {})", p.name(name), value(p, v)?)
        }
        Node::Size(name, op, v) => format!("size({}) {op} {}", p.name(name), p.value(v.clone())),
        Node::KeyEquals(name, v) => format!("{} = {}", p.name(name), p.value(v.clone()?)),
        Node::KeyFunction(function, name) => format!("{function}({})", p.name(name)),
        Node::And(a, b) => format!("({} AND {})", render(a, p)?, render(b, p)?),
        Node::Or(a, b) => format!("({} OR {})", render(a, p)?, render(b, p)?),
        Node::Not(a) => format!("(NOT {})", render(a, p)?),
    })
}

/// A comparison; `= None` and `<> None` on an optional field test for the
/// attribute's absence and presence, since `None` is stored as no attribute.
fn compare<E>(name: &'static str, op: &'static str, value: Value) -> Condition<E> {
    match (op, &value) {
        ("=", Ok(AttributeValue::Null(_))) => {
            Condition::new(Node::Function("attribute_not_exists", name, None))
        }
        ("<>", Ok(AttributeValue::Null(_))) => {
            Condition::new(Node::Function("attribute_exists", name, None))
        }
        _ => Condition::new(Node::Compare(name, op, value)),
    }
}

macro_rules! comparisons {
    ($($(#[$doc:meta])* $method:ident => $op:literal),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $method(self, value: impl IntoAttr<T>) -> Condition<E>
        where
            M: Comparable,
        {
            compare(self.name(), $op, value.into_attr())
        }
    )*};
}

impl<E, T, M> Attr<E, T, M> {
    comparisons! {
        /// `attr = value`
        eq => "=",
        /// `attr <> value`
        ne => "<>",
        /// `attr < value`
        lt => "<",
        /// `attr <= value`
        lte => "<=",
        /// `attr > value`
        gt => ">",
        /// `attr >= value`
        gte => ">=",
    }

    /// `attr BETWEEN low AND high` (inclusive).
    pub fn between(self, low: impl IntoAttr<T>, high: impl IntoAttr<T>) -> Condition<E>
    where
        M: Comparable,
    {
        Condition::new(Node::Between(
            self.name(),
            low.into_attr(),
            high.into_attr(),
        ))
    }

    /// `attr IN (v1, v2, ...)`.
    pub fn is_in<V: IntoAttr<T>>(self, values: impl IntoIterator<Item = V>) -> Condition<E>
    where
        M: Comparable,
    {
        Condition::new(Node::In(
            self.name(),
            values.into_iter().map(IntoAttr::into_attr).collect(),
        ))
    }

    /// `attribute_exists(attr)`.
    pub fn exists(self) -> Condition<E>
    where
        M: Comparable,
    {
        Condition::new(Node::Function("attribute_exists", self.name(), None))
    }

    /// `attribute_not_exists(attr)`.
    pub fn not_exists(self) -> Condition<E>
    where
        M: Comparable,
    {
        Condition::new(Node::Function("attribute_not_exists", self.name(), None))
    }

    /// `begins_with(attr, prefix)` (strings).
    pub fn begins_with(self, prefix: &str) -> Condition<E>
    where
        M: Comparable,
    {
        Condition::new(Node::Function(
            "begins_with",
            self.name(),
            Some(Ok(AttributeValue::S(prefix.to_owned()))),
        ))
    }

    /// `contains(attr, value)`: a substring of a string, or a member of a
    /// set or list. The value is any stored value (`"x"`, `5`, a `&String`).
    ///
    /// ```
    /// use entity_core::{Entity, expr::Placeholders};
    ///
    /// #[derive(Entity)]
    /// #[entity(schema = "app")]
    /// #[pk(id)]
    /// struct Doc { id: String, title: String, tags: Vec<String> }
    ///
    /// let f = Doc::fields();
    /// let condition = f.title.contains("draft").and(f.tags.contains("rust"));
    /// let text = condition.render(&mut Placeholders::default()).unwrap();
    /// assert_eq!(text, "(contains(#n0, :v0) AND contains(#n1, :v1))");
    /// ```
    pub fn contains<V: crate::attr::ToAttribute>(self, value: V) -> Condition<E>
    where
        M: Comparable,
    {
        let value = value
            .to_attribute()
            .map(|v| v.unwrap_or(AttributeValue::Null(true)));
        Condition::new(Node::Function("contains", self.name(), Some(value)))
    }

    /// `size(attr) <op> n` for `op` in `=`, `<>`, `<`, `<=`, `>`, `>=`:
    /// the length of a string, binary, list, map or set.
    pub fn size(self, op: SizeOp, n: u64) -> Condition<E>
    where
        M: Comparable,
    {
        Condition::new(Node::Size(
            self.name(),
            op.text(),
            AttributeValue::N(n.to_string()),
        ))
    }
}

/// The comparison of a `size(...)` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Lte,
    /// `>`
    Gt,
    /// `>=`
    Gte,
}

impl SizeOp {
    fn text(self) -> &'static str {
        match self {
            SizeOp::Eq => "=",
            SizeOp::Ne => "<>",
            SizeOp::Lt => "<",
            SizeOp::Lte => "<=",
            SizeOp::Gt => ">",
            SizeOp::Gte => ">=",
        }
    }
}
