//! A timestamp key composite, or a serde field, without its crate feature:
//! one error, naming the feature.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
