//! Compile-fail cases of the derives: one mistake per file, each with the
//! `.stderr` rustc prints. `UI_GLOB=ui/keys/*.rs,ui/names/*.rs` runs some
//! families.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    let globs = std::env::var("UI_GLOB").unwrap_or_else(|_| "ui/*/*.rs".to_owned());
    for glob in globs.split(',') {
        t.compile_fail(glob);
    }
}
