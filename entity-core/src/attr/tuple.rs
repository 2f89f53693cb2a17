//! An entity's plain fields written and read as one tuple: generated
//! `to_item` and `from_item` make one call each instead of one per field,
//! and the per-field work is compiled once per tuple of types.

use super::{FromAttribute, ToAttribute};
use crate::error::{DecodeError, EncodeError};
use crate::model::EntityModel;
use crate::{Item, ItemWriter};
use aws_sdk_dynamodb::types::AttributeValue;

/// A tuple of references to field values, written as attributes.
pub trait PutFields {
    /// Each field's attribute name (`[&str; N]`).
    type Names: ?Sized;

    /// Writes each value under its name (a `None` conversion leaves the
    /// attribute out); the first failure names its attribute.
    fn put_fields(
        self,
        item: &mut ItemWriter,
        entity: &'static str,
        names: &Self::Names,
    ) -> Result<(), EncodeError>;
}

/// A tuple of field values, read from attributes.
pub trait ReadFields: Sized {
    /// Each field's attribute name (`[&str; N]`).
    type Names: ?Sized;

    /// Reads each field from its attribute of `item`, in one pass over the
    /// item; the first failure names its attribute.
    fn read_fields(
        item: Item,
        entity: &'static str,
        names: &Self::Names,
    ) -> Result<Self, DecodeError>;
}

/// Writes fields `values` under `names` (`to_item`).
///
/// ```
/// use entity_core::__private::{put_fields, read_fields, MODEL_DEFAULTS};
/// use entity_core::ItemWriter;
///
/// let mut item = ItemWriter::new(&MODEL_DEFAULTS);
/// put_fields(&mut item, "Task", &["id", "n"], (&"t-1".to_owned(), &7u32))?;
/// let (id, n): (String, u32) = read_fields(item.finish(), "Task", &["id", "n"])?;
/// assert_eq!((id.as_str(), n), ("t-1", 7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn put_fields<T: PutFields>(
    item: &mut ItemWriter,
    entity: &'static str,
    names: &T::Names,
    values: T,
) -> Result<(), EncodeError> {
    values.put_fields(item, entity, names)
}

/// Reads the fields named `names` from `item` (`from_item`).
#[inline]
pub fn read_fields<T: ReadFields>(
    item: Item,
    entity: &'static str,
    names: &T::Names,
) -> Result<T, DecodeError> {
    T::read_fields(item, entity, names)
}

/// The whole item of an entity whose fields are all plain, in the order of
/// its model's fields: the fields `values`, the string keys `keys` and the
/// identity and version attributes (`to_item`).
#[inline]
pub fn plain_item<T, const N: usize, const K: usize>(
    item: &mut ItemWriter,
    model: &'static EntityModel,
    values: T,
    keys: [(&'static str, String); K],
) -> Result<(), EncodeError>
where
    T: PutFields<Names = [&'static str; N]>,
{
    values.put_fields(item, model.name, &model_names(model))?;
    crate::__private::put_keys(item, keys);
    crate::__private::put_identity(item, model);
    Ok(())
}

/// Checks that `item` is one of the model's entity at its version, then
/// reads its fields, all plain, in the order of the model's fields
/// (`from_item`).
#[inline]
pub fn read_plain_item<T, const N: usize>(
    item: Item,
    model: &'static EntityModel,
) -> Result<T, DecodeError>
where
    T: ReadFields<Names = [&'static str; N]>,
{
    crate::__private::check_item(&item, model)?;
    T::read_fields(item, model.name, &model_names(model))
}

/// The attribute names of the model's first `N` fields (the derive passes
/// a tuple of every field, so there are `N`).
#[inline]
fn model_names<const N: usize>(model: &'static EntityModel) -> [&'static str; N] {
    std::array::from_fn(|i| model.fields.get(i).map_or("", |f| f.attribute))
}

macro_rules! tuples {
    ($( ($n:literal; $($i:tt $t:ident $v:ident),*) )*) => {$(
        impl<$($t: ToAttribute + ?Sized),*> PutFields for ($(&$t,)*) {
            type Names = [&'static str; $n];

            #[inline]
            fn put_fields(
                self,
                item: &mut ItemWriter,
                entity: &'static str,
                names: &Self::Names,
            ) -> Result<(), EncodeError> {
                $(crate::__private::put_field(item, entity, names[$i], self.$i)?;)*
                Ok(())
            }
        }

        impl<$($t: FromAttribute),*> ReadFields for ($($t,)*) {
            type Names = [&'static str; $n];

            #[inline]
            fn read_fields(
                item: Item,
                entity: &'static str,
                names: &Self::Names,
            ) -> Result<Self, DecodeError> {
                let slots: [Option<AttributeValue>; $n] = crate::__private::slots(item, names);
                let [$($v),*] = slots;
                Ok(($(crate::__private::read_field::<$t>($v, entity, names[$i])?,)*))
            }
        }
    )*};
}

tuples! {
    (1; 0 T0 v0)
    (2; 0 T0 v0, 1 T1 v1)
    (3; 0 T0 v0, 1 T1 v1, 2 T2 v2)
    (4; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3)
    (5; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4)
    (6; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5)
    (7; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6)
    (8; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7)
    (9; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8)
    (10; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9)
    (11; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9, 10 T10 v10)
    (12; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9, 10 T10 v10, 11 T11 v11)
    (13; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9, 10 T10 v10, 11 T11 v11, 12 T12 v12)
    (14; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9, 10 T10 v10, 11 T11 v11, 12 T12 v12, 13 T13 v13)
    (15; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9, 10 T10 v10, 11 T11 v11, 12 T12 v12, 13 T13 v13, 14 T14 v14)
    (16; 0 T0 v0, 1 T1 v1, 2 T2 v2, 3 T3 v3, 4 T4 v4, 5 T5 v5, 6 T6 v6, 7 T7 v7, 8 T8 v8, 9 T9 v9, 10 T10 v10, 11 T11 v11, 12 T12 v12, 13 T13 v13, 14 T14 v14, 15 T15 v15)
}

/// The most fields `to_item` and `from_item` convert through one tuple;
/// larger entities convert field by field.
pub const MAX_FIELDS: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: &EntityModel = &crate::__private::MODEL_DEFAULTS;

    #[test]
    fn a_missing_or_wrong_attribute_is_named() {
        let mut writer = ItemWriter::new(MODEL);
        put_fields(&mut writer, "Task", &["id"], (&"t".to_owned(),)).unwrap();
        let mut item = writer.finish();
        let err = read_fields::<(String, u32)>(item.clone(), "Task", &["id", "n"]).unwrap_err();
        assert!(err.to_string().starts_with("Task.n:"), "{err}");
        item.insert("n".into(), AttributeValue::S("x".into()));
        let err = read_fields::<(String, u32)>(item, "Task", &["id", "n"]).unwrap_err();
        assert!(err.to_string().starts_with("Task.n:"), "{err}");
    }

    #[test]
    fn optional_fields_may_be_missing_and_are_left_out() {
        let mut writer = ItemWriter::new(MODEL);
        put_fields(
            &mut writer,
            "Task",
            &["id", "note"],
            (&"t".to_owned(), &None::<String>),
        )
        .unwrap();
        let item = writer.finish();
        assert_eq!(item.len(), 1);
        let (id, note): (String, Option<String>) =
            read_fields(item, "Task", &["id", "note"]).unwrap();
        assert_eq!((id.as_str(), note), ("t", None));
    }
}
