//! Property tests of the key codec through generated code: compose then
//! parse gives the composites back, distinct composites give distinct keys,
//! and for integers and timestamps key order is value order.

use chrono::{DateTime, TimeZone, Utc};
use entity_core::KeyPart;
use entity_core::{Query, SortCondition};
use entity_tests::{Entry, Order};
use proptest::prelude::*;

fn key_text<T: KeyPart>(value: &T) -> String {
    let mut out = String::new();
    value.encode_key(&mut out);
    out
}

/// Strings rich in separators, escapes, unicode and emptiness.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[#%a-c !\"\\x00]{0,6}",
        "\\PC{0,12}",
        Just(String::new()),
        Just("%23".to_owned()),
        Just("#".to_owned()),
    ]
}

fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
    // Years 0000-9999, every nanosecond.
    (-62_167_219_200i64..253_402_300_799i64, 0u32..1_000_000_000)
        .prop_map(|(secs, nanos)| Utc.timestamp_opt(secs, nanos).unwrap())
}

macro_rules! integer_order {
    ($($name:ident: $ty:ty),*) => {$(
        proptest! {
            #[test]
            fn $name(a: $ty, b: $ty) {
                let (ka, kb) = (key_text(&a), key_text(&b));
                prop_assert_eq!(a.cmp(&b), ka.cmp(&kb), "{} vs {}", ka, kb);
                prop_assert_eq!(<$ty>::decode_key(&ka).unwrap(), a);
                prop_assert_eq!(ka.len(), key_text(&<$ty>::MAX).len());
            }
        }
    )*};
}

integer_order!(
    order_i8: i8, order_i16: i16, order_i32: i32, order_i64: i64, order_i128: i128, order_isize: isize,
    order_u8: u8, order_u16: u16, order_u32: u32, order_u64: u64, order_u128: u128, order_usize: usize
);

proptest! {
    #[test]
    fn string_composites_round_trip(user in tricky_string(), day in tricky_string(), id in tricky_string()) {
        let order = Order { user_id: user.clone(), day: day.clone(), order_id: id.clone(), total_cents: 0 };
        prop_assert_eq!(Order::parse_pk(&order.pk()).unwrap(), (user,));
        prop_assert_eq!(Order::parse_sk(&order.sk()).unwrap(), (day, id));
    }

    #[test]
    fn distinct_composites_give_distinct_keys(
        a in (tricky_string(), tricky_string()),
        b in (tricky_string(), tricky_string()),
    ) {
        prop_assume!(a != b);
        prop_assert_ne!(Order::sk_of(&a.0, &a.1), Order::sk_of(&b.0, &b.1));
    }

    #[test]
    fn timestamps_order_and_round_trip(a in timestamp(), b in timestamp(), delta: i32) {
        let (ka, kb) = (Entry::sk_of(a, delta), Entry::sk_of(b, delta));
        prop_assert_eq!(a.cmp(&b), ka.cmp(&kb));
        prop_assert_eq!(Entry::parse_sk(&ka).unwrap(), (a, delta));
    }

    #[test]
    fn signed_sort_keys_order_as_values(a: i32, b: i32) {
        let (ka, kb) = (Entry::by_delta_sk_of(a), Entry::by_delta_sk_of(b));
        prop_assert_eq!(a.cmp(&b), ka.cmp(&kb));
    }

    #[test]
    fn time_crate_timestamps_order_and_round_trip(a in timestamp(), b in timestamp()) {
        let to_time = |t: DateTime<Utc>| {
            time::OffsetDateTime::from_unix_timestamp_nanos(t.timestamp_nanos_opt().map(i128::from).unwrap_or_else(|| {
                i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos())
            }))
            .unwrap()
        };
        let (ta, tb) = (to_time(a), to_time(b));
        let (ka, kb) = (key_text(&ta), key_text(&tb));
        prop_assert_eq!(ka.clone(), key_text(&a), "chrono and time write the same text");
        prop_assert_eq!(ta.cmp(&tb), ka.cmp(&kb));
        prop_assert_eq!(time::OffsetDateTime::decode_key(&ka).unwrap(), ta);
    }

    #[test]
    fn raw_keys_never_panic_the_parsers(raw in "\\PC{0,40}") {
        let _ = Order::parse_sk(&raw);
        let _ = Entry::parse_sk(&raw);
        let _ = i64::decode_key(&raw);
    }
}

proptest! {
    /// The composed sort key orders as the tuple of the composites' key text:
    /// the separator sorts below every escaped value character.
    #[test]
    fn composed_keys_order_as_tuples(a in tricky_string(), b in tricky_string(), c in tricky_string(), d in tricky_string()) {
        let text = |s: &String| key_text(s);
        let tuple_order = (text(&a), text(&c)).cmp(&(text(&b), text(&d)));
        prop_assert_eq!(Order::sk_of(&a, &c).cmp(&Order::sk_of(&b, &d)), tuple_order);
    }
}

/// Strings over the characters where key order is hardest: the separator,
/// `$`, the escape `%`, NUL, the largest characters, letters around them,
/// and any Unicode.
fn order_string() -> impl Strategy<Value = String> {
    let chars = prop_oneof![
        Just('#'),
        Just('$'),
        Just('%'),
        Just('&'),
        Just('\0'),
        Just('a'),
        Just('b'),
        Just('\u{10FFFD}'),
        Just('\u{10FFFE}'),
        Just('\u{10FFFF}'),
        any::<char>(),
    ];
    prop_oneof![
        proptest::collection::vec(chars, 0..5).prop_map(|c| c.into_iter().collect()),
        "\\PC{0,8}",
    ]
}

/// Whether the sort key of `(day, id)` satisfies the query's condition.
fn selects(q: &Query<Order>, day: &str, id: &str) -> bool {
    let (_, condition): (_, &SortCondition) = q.sort_condition().expect("a sort condition");
    condition.matches(&Order::sk_of(day, id))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A composed key orders exactly as the tuple of its composites' values,
    /// for every Rust string.
    #[test]
    fn composed_keys_order_as_value_tuples(a in order_string(), b in order_string(), c in order_string(), d in order_string()) {
        prop_assert_eq!(Order::sk_of(&a, &c).cmp(&Order::sk_of(&b, &d)), (&a, &c).cmp(&(&b, &d)));
    }

    /// Ranges on a composite that more of the key follows (`day`) and on
    /// the last one (`order_id`) select exactly the keys whose values are in
    /// range, for every Rust string.
    #[test]
    fn ranges_select_exactly_the_values_in_range(v in order_string(), w in order_string(), low in order_string(), id in order_string(), other in order_string()) {
        let on_day = |q: Query<Order>| selects(&q, &w, &id);
        prop_assert_eq!(on_day(Order::primary("u").day().gt(&v)), w > v);
        prop_assert_eq!(on_day(Order::primary("u").day().gte(&v)), w >= v);
        prop_assert_eq!(on_day(Order::primary("u").day().lt(&v)), w < v);
        prop_assert_eq!(on_day(Order::primary("u").day().lte(&v)), w <= v);
        let between = Order::primary("u").day().between(&low, &v);
        if !between.matches_nothing() {
            prop_assert_eq!(on_day(between), low <= w && w <= v);
        } else {
            prop_assert!(low > v);
        }
        let on_id = |q: Query<Order>| selects(&q, &other, &w);
        prop_assert_eq!(on_id(Order::primary("u").day().eq(&other).order_id().gt(&v)), w > v);
        prop_assert_eq!(on_id(Order::primary("u").day().eq(&other).order_id().lt(&v)), w < v);
        prop_assert_eq!(on_id(Order::primary("u").day().eq(&other).order_id().lte(&v)), w <= v);
        // A prefix query reads every key of its day, and no other day's.
        prop_assert_eq!(selects(&Order::primary("u").day().eq(&v).build(), &w, &id), w == v);
    }
}
