//! Keys composed and parsed as a whole: the literal texts of a template and
//! a tuple of its composites. Generated composers and parsers call
//! [`compose`] and [`parse`] instead of spelling out every push and read, so
//! an entity's expansion stays small and the work is compiled once per
//! tuple of types, shared by every key of that shape.

use super::{KeyArg, KeyError, KeyPart, KeyReader, Stop};
use crate::Item;

/// The arguments of a key's composites: a tuple of [`KeyArg`]s, one per
/// composite, each for its composite's [`KeyPart`] type in `T`.
pub trait KeyArgs<T> {
    /// The template's literal texts: one before each composite and one
    /// after the last (`[&str; N + 1]`).
    type Texts: ?Sized;

    /// Appends the key: each text, then the next composite's key text.
    fn encode_args(&self, texts: &Self::Texts, out: &mut String);

    /// A capacity hint for the composites' key texts.
    fn args_len_hint(&self) -> usize;
}

/// A tuple of composite values read back from a key.
pub trait KeyParts: Sized {
    /// The template's literal texts (`[&str; N + 1]`).
    type Texts: ?Sized;
    /// Where each composite's value ends (`[Stop; N]`).
    type Stops: ?Sized;
    /// The attribute of each composite's field (`[&str; N]`).
    type Names: ?Sized;

    /// Reads each text, then the next composite's value.
    fn read_parts(
        reader: &mut KeyReader<'_>,
        texts: &Self::Texts,
        stops: &Self::Stops,
    ) -> Result<Self, KeyError>;

    /// [`read_parts`](KeyParts::read_parts) with every value ending at
    /// the next `#`.
    fn read_default(reader: &mut KeyReader<'_>, texts: &Self::Texts) -> Result<Self, KeyError>;

    /// Inserts each value into `item` as its field's attribute (`names`).
    fn put_attributes(self, names: &Self::Names, item: &mut Item);
}

/// Composes a key from its template's literal `texts` and its composites'
/// `args`.
///
/// ```
/// use entity_core::__private::compose;
///
/// let key = compose::<(String, u32), _>(&["ORDER#", "#line_", ""], ("a#b", 7u32));
/// assert_eq!(key, "ORDER#a%23b#line_0000000007");
/// ```
#[inline]
pub fn compose<T, A: KeyArgs<T>>(texts: &A::Texts, args: A) -> String
where
    A::Texts: AsRef<[&'static str]>,
{
    let literal: usize = texts.as_ref().iter().map(|t| t.len()).sum();
    let mut out = String::with_capacity(literal + args.args_len_hint());
    args.encode_args(texts, &mut out);
    out
}

/// Parses a whole key (`entity`'s `which` key) along its template's literal
/// `texts`, each composite ending where its `stops` entry says.
///
/// ```
/// use entity_core::__private::parse_with;
/// use entity_core::key::Stop;
///
/// let texts = ["ORDER#", "#line_", ""];
/// let stops = [Stop::First('#'); 2];
/// let (id, line): (String, u32) = parse_with("Order", "sk", "ORDER#a%23b#line_0000000007", &texts, &stops)?;
/// assert_eq!((id.as_str(), line), ("a#b", 7));
/// assert!(parse_with::<(String, u32)>("Order", "sk", "ORDER#a#line_x", &texts, &stops).is_err());
/// # Ok::<(), entity_core::KeyError>(())
/// ```
#[inline]
pub fn parse_with<T: KeyParts>(
    entity: &'static str,
    which: &'static str,
    key: &str,
    texts: &T::Texts,
    stops: &T::Stops,
) -> Result<T, KeyError> {
    let mut reader = KeyReader::new(entity, which, key);
    let parts = T::read_parts(&mut reader, texts, stops)?;
    reader.finish()?;
    Ok(parts)
}

/// [`parse_with`] where every value ends at the next `#` or the end (the
/// rule of every key whose values are all followed by `#` or nothing).
///
/// ```
/// use entity_core::__private::parse;
///
/// let (id, line): (String, u32) = parse("Order", "sk", "ORDER#a#line_0000000007", &["ORDER#", "#line_", ""])?;
/// assert_eq!((id.as_str(), line), ("a", 7));
/// # Ok::<(), entity_core::KeyError>(())
/// ```
#[inline]
pub fn parse<T: KeyParts>(
    entity: &'static str,
    which: &'static str,
    key: &str,
    texts: &T::Texts,
) -> Result<T, KeyError> {
    let mut reader = KeyReader::new(entity, which, key);
    let parts = T::read_default(&mut reader, texts)?;
    reader.finish()?;
    Ok(parts)
}

/// The attributes of a parsed key's composites (`Entity::key_fields`):
/// nothing when the key did not parse.
///
/// ```
/// use entity_core::__private::{key_fields, parse};
/// use entity_core::Item;
///
/// let mut item = Item::new();
/// let parts = parse::<(String,)>("Task", "pk", "TASK#t1", &["TASK#", ""]);
/// key_fields(&mut item, &["task_id"], parts);
/// assert_eq!(item["task_id"].as_s().unwrap(), "t1");
/// ```
pub fn key_fields<T: KeyParts>(item: &mut Item, names: &T::Names, parts: Result<T, KeyError>) {
    if let Ok(parts) = parts {
        parts.put_attributes(names, item);
    }
}

/// [`key_fields`] into a new item.
pub fn key_item<T: KeyParts>(names: &T::Names, parts: Result<T, KeyError>) -> Item {
    let mut item = Item::new();
    key_fields(&mut item, names, parts);
    item
}

macro_rules! tuples {
    ($( ($n:literal; $($i:tt $t:ident $a:ident),*) )*) => {$(
        impl<$($t: KeyPart, $a: KeyArg<$t>),*> KeyArgs<($($t,)*)> for ($($a,)*) {
            type Texts = [&'static str; $n + 1];

            #[inline]
            #[allow(unused_variables)]
            fn encode_args(&self, texts: &Self::Texts, out: &mut String) {
                $(
                    out.push_str(texts[$i]);
                    self.$i.encode_arg(out);
                )*
                out.push_str(texts[$n]);
            }

            #[inline]
            fn args_len_hint(&self) -> usize {
                0 $(+ self.$i.arg_len_hint())*
            }
        }

        impl<$($t: KeyPart),*> KeyParts for ($($t,)*) {
            type Texts = [&'static str; $n + 1];
            type Stops = [Stop; $n];
            type Names = [&'static str; $n];

            #[inline]
            #[allow(unused_variables)]
            fn read_parts(
                reader: &mut KeyReader<'_>,
                texts: &Self::Texts,
                stops: &Self::Stops,
            ) -> Result<Self, KeyError> {
                let parts = ($(
                    {
                        reader.literal(texts[$i])?;
                        reader.value::<$t>(stops[$i])?
                    },
                )*);
                reader.literal(texts[$n])?;
                Ok(parts)
            }

            #[inline]
            #[allow(unused_variables)]
            fn read_default(reader: &mut KeyReader<'_>, texts: &Self::Texts) -> Result<Self, KeyError> {
                let parts = ($(
                    {
                        reader.literal(texts[$i])?;
                        reader.value::<$t>(Stop::First(super::SEPARATOR))?
                    },
                )*);
                reader.literal(texts[$n])?;
                Ok(parts)
            }

            #[inline]
            #[allow(unused_variables)]
            fn put_attributes(self, names: &Self::Names, item: &mut Item) {
                $(
                    if let Ok(Some(value)) = self.$i.to_attribute() {
                        item.insert(names[$i].to_owned(), value);
                    }
                )*
            }
        }
    )*};
}

tuples! {
    (0;)
    (1; 0 T0 A0)
    (2; 0 T0 A0, 1 T1 A1)
    (3; 0 T0 A0, 1 T1 A1, 2 T2 A2)
    (4; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3)
    (5; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4)
    (6; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5)
    (7; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5, 6 T6 A6)
    (8; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5, 6 T6 A6, 7 T7 A7)
    (9; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5, 6 T6 A6, 7 T7 A7, 8 T8 A8)
    (10; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5, 6 T6 A6, 7 T7 A7, 8 T8 A8,
        9 T9 A9)
    (11; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5, 6 T6 A6, 7 T7 A7, 8 T8 A8,
        9 T9 A9, 10 T10 A10)
    (12; 0 T0 A0, 1 T1 A1, 2 T2 A2, 3 T3 A3, 4 T4 A4, 5 T5 A5, 6 T6 A6, 7 T7 A7, 8 T8 A8,
        9 T9 A9, 10 T10 A10, 11 T11 A11)
}

/// The most composites a key composes and parses through [`compose`] and
/// [`parse`]; longer keys are spelled out by the derive.
pub const MAX_TUPLE: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_and_parse_round_trip() {
        let texts = ["$app#v1#task#id_", "#n_", "@", ""];
        let key = compose::<(String, i32, bool), _>(&texts, ("x#y", -5i32, true));
        assert_eq!(key, "$app#v1#task#id_x%23y#n_-9999999994@true");
        let stops = [Stop::First('#'), Stop::Last('@'), Stop::First('#')];
        let parts: (String, i32, bool) = parse_with("Task", "pk", &key, &texts, &stops).unwrap();
        assert_eq!(parts, ("x#y".to_owned(), -5, true));
    }

    #[test]
    fn no_composites() {
        assert_eq!(compose::<(), _>(&["$app#v1#task"], ()), "$app#v1#task");
        parse::<()>("Task", "sk", "$app#v1#task", &["$app#v1#task"]).unwrap();
        let err = parse::<()>("Task", "sk", "$app#v1#task#x", &["$app#v1#task"]).unwrap_err();
        assert_eq!(err.reason, "unexpected trailing `#x`");
    }

    #[test]
    fn parse_errors_name_the_key() {
        let err = parse::<(u32,)>("Task", "by_x sk", "N#abc", &["N#", ""]).unwrap_err();
        assert_eq!((err.entity, err.which), ("Task", "by_x sk"));
        let err = parse::<(u32,)>("Task", "sk", "M#1", &["N#", ""]).unwrap_err();
        assert!(err.reason.starts_with("expected `N#`"), "{}", err.reason);
    }
}
