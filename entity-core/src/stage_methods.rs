//! The typed query stages' methods, written once here and invoked by the
//! derive with a few tokens per sort key composite.
//!
//! The methods a composite gets are the same for every entity but for their
//! names and types. Spelling them out in the derive's output cost the derive
//! most of its time (every generated token crosses the proc-macro bridge);
//! rustc expands this macro without that cost. The output is the same code.

/// A plain sort key composite's methods (its text is its value's, with no
/// bucket, padding or case folding), on stage type `$stage`:
///
/// * `@fix`: `status(v)`, which fixes it and moves to stage `$next`, and
///   `status_eq(v)`;
/// * `@begins`: `status_begins_with(v)`;
/// * `@range`: `status_gt`, `_gte`, `_lt`, `_lte` and `_between`, `$last`
///   saying the composite ends the key;
/// * `@whole`: `sk_gt` and friends, on the whole key given as a tuple of
///   every composite, composed by `$compose`.
///
/// `[$($guard)*]` is the `where` clause that holds where the composite comes
/// next (empty on stage 0).
#[doc(hidden)]
#[macro_export]
macro_rules! __entity_stage_methods {
    (@fix $stage:ident<$next:literal>, $out:ty, $ty:ty, [$($guard:tt)*],
        $fix:ident $eq:ident, $then:literal, $complete:literal, $doc:literal) => {
        #[doc = $doc]
        pub fn $fix(self, value: impl $crate::KeyArg<$ty>) -> $stage<$next> $($guard)* {
            $stage { q: self.q.fix::<$ty>(&value, $then, $complete) }
        }

        #[doc = concat!("`", stringify!($fix), "` equals `value`.")]
        pub fn $eq(self, value: impl $crate::KeyArg<$ty>) -> $crate::Query<$out> $($guard)* {
            self.$fix(value).build()
        }
    };
    (@begins $out:ty, $ty:ty, [$($guard:tt)*], $field:ident $begins:ident) => {
        #[doc = concat!("`", stringify!($field), "`'s key text starts with `value`'s.")]
        pub fn $begins(self, value: impl $crate::KeyArg<$ty>) -> $crate::Query<$out> $($guard)* {
            self.q.begins_with::<$ty>(&value)
        }
    };
    (@range $out:ty, $ty:ty, [$($guard:tt)*], $field:ident $last:literal,
        $gt:ident $gte:ident $lt:ident $lte:ident $between:ident) => {
        $crate::__entity_stage_methods!(@compare $out, $ty, [$($guard)*], $field $last, $gt gt ">");
        $crate::__entity_stage_methods!(@compare $out, $ty, [$($guard)*], $field $last, $gte ge ">=");
        $crate::__entity_stage_methods!(@compare $out, $ty, [$($guard)*], $field $last, $lt lt "<");
        $crate::__entity_stage_methods!(@compare $out, $ty, [$($guard)*], $field $last, $lte le "<=");

        #[doc = concat!("`low` <= `", stringify!($field), "` <= `high`.")]
        pub fn $between(self, low: impl $crate::KeyArg<$ty>, high: impl $crate::KeyArg<$ty>) -> $crate::Query<$out> $($guard)* {
            self.q.between::<$ty>(&low, &high, $last)
        }
    };
    (@compare $out:ty, $ty:ty, [$($guard:tt)*], $field:ident $last:literal, $method:ident $op:ident $sign:literal) => {
        #[doc = concat!("`", stringify!($field), "` ", $sign, " `value`.")]
        pub fn $method(self, value: impl $crate::KeyArg<$ty>) -> $crate::Query<$out> $($guard)* {
            self.q.$op::<$ty>(&value, $last)
        }
    };
    (@whole $out:ty, $compose:path, ($($ty:ty => $i:tt),+)) => {
        $crate::__entity_stage_methods!(@whole_compare $out, $compose, ($($ty => $i),+), sk_gt key_gt ">");
        $crate::__entity_stage_methods!(@whole_compare $out, $compose, ($($ty => $i),+), sk_gte key_ge ">=");
        $crate::__entity_stage_methods!(@whole_compare $out, $compose, ($($ty => $i),+), sk_lt key_lt "<");
        $crate::__entity_stage_methods!(@whole_compare $out, $compose, ($($ty => $i),+), sk_lte key_le "<=");

        /// The whole sort key between those composed from `low` and `high` (inclusive).
        pub fn sk_between(self, low: ($(impl $crate::KeyArg<$ty>),+), high: ($(impl $crate::KeyArg<$ty>),+)) -> $crate::Query<$out> {
            self.q.between_text($compose($(low.$i),+), $compose($(high.$i),+), true)
        }
    };
    (@whole_compare $out:ty, $compose:path, ($($ty:ty => $i:tt),+), $method:ident $op:ident $sign:literal) => {
        #[doc = concat!("The whole sort key ", $sign, " the one composed from `sk`.")]
        pub fn $method(self, sk: ($(impl $crate::KeyArg<$ty>),+)) -> $crate::Query<$out> {
            self.q.$op($compose($(sk.$i),+))
        }
    };
}
