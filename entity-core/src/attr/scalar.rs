//! Attribute conversion of scalars: strings, numbers, bools, binary,
//! timestamps and `Option`.

use super::{wrong_type, AttributeError, FromAttribute, ToAttribute};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

impl ToAttribute for String {
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(Some(AttributeValue::S(self.clone())))
    }
}

impl ToAttribute for str {
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(Some(AttributeValue::S(self.to_owned())))
    }
}

impl FromAttribute for String {
    #[inline]
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::S(s) => Ok(s),
            other => Err(wrong_type("S", &other)),
        }
    }
}

impl ToAttribute for bool {
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(Some(AttributeValue::Bool(*self)))
    }
}

impl FromAttribute for bool {
    #[inline]
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::Bool(b) => Ok(b),
            other => Err(wrong_type("BOOL", &other)),
        }
    }
}

impl ToAttribute for Blob {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        Ok(Some(AttributeValue::B(self.clone())))
    }
}

impl FromAttribute for Blob {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::B(b) => Ok(b),
            other => Err(wrong_type("B", &other)),
        }
    }
}

/// Formats an integer as DynamoDB number text.
pub(crate) fn integer_text<T: itoa::Integer>(value: T) -> String {
    itoa::Buffer::new().format(value).to_owned()
}

/// Parses DynamoDB number text as `T`.
pub(crate) fn parse_number<T: std::str::FromStr>(text: &str) -> Result<T, AttributeError> {
    text.parse().map_err(|_| {
        AttributeError::Invalid(format!(
            "number `{text}` does not fit {}",
            std::any::type_name::<T>()
        ))
    })
}

macro_rules! integer_attribute {
    ($($ty:ty),*) => {$(
        impl ToAttribute for $ty {
            #[inline]
            fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
                Ok(Some(AttributeValue::N(integer_text(*self))))
            }
        }

        impl FromAttribute for $ty {
            #[inline]
            fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
                match value {
                    AttributeValue::N(n) => parse_number(&n),
                    other => Err(wrong_type("N", &other)),
                }
            }
        }
    )*};
}

integer_attribute!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// Formats a float as DynamoDB number text; DynamoDB has no NaN or infinity.
pub(crate) fn float_text<T: std::fmt::Display>(
    value: T,
    finite: bool,
) -> Result<String, AttributeError> {
    if !finite {
        return Err(AttributeError::Invalid(format!(
            "{value} cannot be stored: DynamoDB numbers are finite"
        )));
    }
    Ok(value.to_string())
}

macro_rules! float_attribute {
    ($($ty:ty),*) => {$(
        impl ToAttribute for $ty {
            fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
                float_text(*self, self.is_finite()).map(|n| Some(AttributeValue::N(n)))
            }
        }

        impl FromAttribute for $ty {
            fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
                match value {
                    AttributeValue::N(n) => parse_number(&n),
                    other => Err(wrong_type("N", &other)),
                }
            }
        }
    )*};
}

float_attribute!(f32, f64);

impl<T: ToAttribute> ToAttribute for Option<T> {
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        match self {
            Some(value) => value.to_attribute(),
            None => Ok(None),
        }
    }
}

impl<T: FromAttribute> FromAttribute for Option<T> {
    #[inline]
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        match value {
            AttributeValue::Null(_) => Ok(None),
            other => T::from_attribute(other).map(Some),
        }
    }

    fn from_missing() -> Option<Self> {
        Some(None)
    }
}

/// A borrowed value stores as the value itself: `f.title.contains("x")`
/// takes a `&str` as readily as a `String`.
impl<T: ToAttribute + ?Sized> ToAttribute for &T {
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        (**self).to_attribute()
    }
}

impl<T: ToAttribute + ?Sized> ToAttribute for Box<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
        (**self).to_attribute()
    }
}

impl<T: FromAttribute> FromAttribute for Box<T> {
    fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
        T::from_attribute(value).map(Box::new)
    }

    fn from_missing() -> Option<Self> {
        T::from_missing().map(Box::new)
    }
}

#[allow(unused_macros)]
macro_rules! timestamp_attribute {
    ($ty:ty, $module:ident) => {
        impl ToAttribute for $ty {
            fn to_attribute(&self) -> Result<Option<AttributeValue>, AttributeError> {
                let mut text = String::with_capacity(30);
                crate::key::$module::to_civil(self).write(&mut text);
                Ok(Some(AttributeValue::S(text)))
            }
        }

        impl FromAttribute for $ty {
            fn from_attribute(value: AttributeValue) -> Result<Self, AttributeError> {
                match value {
                    AttributeValue::S(s) => crate::key::Civil::parse(&s)
                        .and_then(crate::key::$module::from_civil)
                        .map_err(|e| AttributeError::Invalid(e.to_string())),
                    other => Err(wrong_type("S", &other)),
                }
            }
        }
    };
}

#[cfg(feature = "chrono")]
timestamp_attribute!(chrono::DateTime<chrono::Utc>, chrono_impl);
#[cfg(feature = "time")]
timestamp_attribute!(time::OffsetDateTime, time_impl);
