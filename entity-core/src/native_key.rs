//! Types that can be a key attribute of a multi-attribute GSI as themselves:
//! DynamoDB key attributes are strings (`S`), numbers (`N`) or binary (`B`).
//!
//! A multi-attribute key stores no composed text: each key attribute is the
//! field's own attribute, so its Rust type fixes the attribute's type in
//! `create_table` and the type of the values in a key condition.

use crate::attr::ToAttribute;
use crate::model::ScalarType;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

/// A field type that can be one attribute of a multi-attribute GSI key.
///
/// `Option<T>` is one too: an item whose field is `None` has no such
/// attribute, so it is absent from the index (a sparse index).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an attribute of a multi-attribute key",
    label = "DynamoDB key attributes are strings, numbers or binary",
    note = "multi-attribute keys store each field as itself: use a `String`, an integer, a float or a `Blob` (or an `Option` of one)"
)]
pub trait NativeKey {
    /// The attribute's type in the key schema.
    const SCALAR: ScalarType;
    /// What a key condition compares with: the type itself, or `T` for
    /// `Option<T>`.
    type Value;
    /// The attribute value of `value` in a key condition.
    fn key_value(value: Self::Value) -> AttributeValue;
}

impl NativeKey for String {
    const SCALAR: ScalarType = ScalarType::S;
    type Value = String;
    fn key_value(value: String) -> AttributeValue {
        AttributeValue::S(value)
    }
}

impl NativeKey for Blob {
    const SCALAR: ScalarType = ScalarType::B;
    type Value = Blob;
    fn key_value(value: Blob) -> AttributeValue {
        AttributeValue::B(value)
    }
}

macro_rules! number_key {
    ($($ty:ty),*) => {$(
        impl NativeKey for $ty {
            const SCALAR: ScalarType = ScalarType::N;
            type Value = $ty;
            fn key_value(value: $ty) -> AttributeValue {
                // Non-finite floats have no attribute; DynamoDB refuses the
                // text, which is the error the user sees.
                match value.to_attribute() {
                    Ok(Some(value)) => value,
                    _ => AttributeValue::N(value.to_string()),
                }
            }
        }
    )*};
}

number_key!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

impl<T: NativeKey> NativeKey for Option<T> {
    const SCALAR: ScalarType = T::SCALAR;
    type Value = T::Value;
    fn key_value(value: T::Value) -> AttributeValue {
        T::key_value(value)
    }
}
