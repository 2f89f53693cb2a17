//! Attribute conversion of containers: lists (`L`), maps (`M`) and sets
//! (`SS`, `NS`, `BS`).

use super::scalar::{integer_text, parse_number};
use super::{wrong_type, AttributeError, FromAttribute, ToAttribute};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

/// An element inside a container is never omitted: `None` becomes `NULL`.
fn element(value: &impl ToAttribute) -> Result<AttributeValue, AttributeError> {
    Ok(value.to_attribute()?.unwrap_or(AttributeValue::Null(true)))
}

fn element_from<T: FromAttribute>(value: AttributeValue) -> Result<T, AttributeError> {
    match value {
        AttributeValue::Null(_) => match T::from_missing() {
            Some(v) => Ok(v),
            None => Err(wrong_type("a value", &AttributeValue::Null(true))),
        },
        other => T::from_attribute(other),
    }
}

impl<T: ToAttribute> ToAttribute for Vec<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        let list = self.iter().map(element).collect::<Result<_, _>>()?;
        Ok(Some(AttributeValue::L(list)))
    }
}

impl<T: FromAttribute> FromAttribute for Vec<T> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::L(list) => list.into_iter().map(element_from).collect(),
            other => Err(wrong_type("L", &other)),
        }
    }
}

impl<T: ToAttribute, S> ToAttribute for HashMap<String, T, S> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        let map = self
            .iter()
            .map(|(k, v)| Ok((k.clone(), element(v)?)))
            .collect::<Result<_, AttributeError>>()?;
        Ok(Some(AttributeValue::M(map)))
    }
}

impl<T: FromAttribute, S: BuildHasher + Default> FromAttribute for HashMap<String, T, S> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::M(map) => map
                .into_iter()
                .map(|(k, v)| Ok((k, element_from(v)?)))
                .collect(),
            other => Err(wrong_type("M", &other)),
        }
    }
}

impl<T: ToAttribute> ToAttribute for BTreeMap<String, T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        let map = self
            .iter()
            .map(|(k, v)| Ok((k.clone(), element(v)?)))
            .collect::<Result<_, AttributeError>>()?;
        Ok(Some(AttributeValue::M(map)))
    }
}

impl<T: FromAttribute> FromAttribute for BTreeMap<String, T> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::M(map) => map
                .into_iter()
                .map(|(k, v)| Ok((k, element_from(v)?)))
                .collect(),
            other => Err(wrong_type("M", &other)),
        }
    }
}

/// Which DynamoDB set type holds a set of this element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetKind {
    /// `SS`
    String,
    /// `NS`
    Number,
    /// `BS`
    Binary,
}

/// A type whose `HashSet`/`BTreeSet` is stored as a DynamoDB set: strings as
/// `SS`, numbers as `NS`, [`Blob`]s as `BS`. An empty set is left out of the
/// item (DynamoDB rejects empty sets) and reads back as empty.
pub trait SetMember: Sized {
    /// The set type.
    const KIND: SetKind;
    /// The member as set text (for `SS`, `NS`) ...
    fn to_member(&self) -> SetElement;
    /// ... and back.
    fn from_member(element: SetElement) -> Result<Self, AttributeError>;
}

/// One member of a DynamoDB set.
#[derive(Debug)]
pub enum SetElement {
    /// A member of an `SS` or `NS`.
    Text(String),
    /// A member of a `BS`.
    Binary(Blob),
}

impl SetMember for String {
    const KIND: SetKind = SetKind::String;
    fn to_member(&self) -> SetElement {
        SetElement::Text(self.clone())
    }
    fn from_member(element: SetElement) -> Result<Self, AttributeError> {
        match element {
            SetElement::Text(s) => Ok(s),
            SetElement::Binary(_) => Err(AttributeError::Invalid(
                "binary member in a string set".into(),
            )),
        }
    }
}

impl SetMember for Blob {
    const KIND: SetKind = SetKind::Binary;
    fn to_member(&self) -> SetElement {
        SetElement::Binary(self.clone())
    }
    fn from_member(element: SetElement) -> Result<Self, AttributeError> {
        match element {
            SetElement::Binary(b) => Ok(b),
            SetElement::Text(_) => Err(AttributeError::Invalid(
                "text member in a binary set".into(),
            )),
        }
    }
}

macro_rules! number_set_member {
    ($($ty:ty),*) => {$(
        impl SetMember for $ty {
            const KIND: SetKind = SetKind::Number;
            fn to_member(&self) -> SetElement {
                SetElement::Text(integer_text(*self))
            }
            fn from_member(element: SetElement) -> Result<Self, AttributeError> {
                match element {
                    SetElement::Text(s) => parse_number(&s),
                    SetElement::Binary(_) => Err(AttributeError::Invalid("binary member in a number set".into())),
                }
            }
        }
    )*};
}

number_set_member!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

fn set_to_attribute<'a, T: SetMember + 'a>(
    members: impl ExactSizeIterator<Item = &'a T>,
) -> Option<AttributeValue> {
    if members.len() == 0 {
        return None;
    }
    let texts = |members: Vec<SetElement>| {
        members
            .into_iter()
            .filter_map(|m| match m {
                SetElement::Text(s) => Some(s),
                SetElement::Binary(_) => None,
            })
            .collect()
    };
    let members: Vec<SetElement> = members.map(T::to_member).collect();
    Some(match T::KIND {
        SetKind::String => AttributeValue::Ss(texts(members)),
        SetKind::Number => AttributeValue::Ns(texts(members)),
        SetKind::Binary => AttributeValue::Bs(
            members
                .into_iter()
                .filter_map(|m| match m {
                    SetElement::Binary(b) => Some(b),
                    SetElement::Text(_) => None,
                })
                .collect(),
        ),
    })
}

fn set_members<T: SetMember>(value: AttributeValue) -> Result<Vec<T>, AttributeError> {
    let members: Vec<SetElement> = match (T::KIND, value) {
        (SetKind::String, AttributeValue::Ss(v)) | (SetKind::Number, AttributeValue::Ns(v)) => {
            v.into_iter().map(SetElement::Text).collect()
        }
        (SetKind::Binary, AttributeValue::Bs(v)) => v.into_iter().map(SetElement::Binary).collect(),
        (kind, other) => {
            let expected = match kind {
                SetKind::String => "SS",
                SetKind::Number => "NS",
                SetKind::Binary => "BS",
            };
            return Err(wrong_type(expected, &other));
        }
    };
    members.into_iter().map(T::from_member).collect()
}

impl<T: SetMember + Eq + Hash, S> ToAttribute for HashSet<T, S> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(set_to_attribute(self.iter()))
    }
}

impl<T: SetMember + Eq + Hash, S: BuildHasher + Default> FromAttribute for HashSet<T, S> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        Ok(set_members(value)?.into_iter().collect())
    }
    fn from_missing() -> Option<Self> {
        Some(Self::default())
    }
}

impl<T: SetMember + Ord> ToAttribute for BTreeSet<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(set_to_attribute(self.iter()))
    }
}

impl<T: SetMember + Ord> FromAttribute for BTreeSet<T> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        Ok(set_members(value)?.into_iter().collect())
    }
    fn from_missing() -> Option<Self> {
        Some(Self::default())
    }
}
