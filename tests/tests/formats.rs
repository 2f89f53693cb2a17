//! The format language beyond the seeds: where each value of a segment
//! ends (first or last stop character), trailing text, unpadded numbers.

use entity_core::Entity;

/// `{id}.{n}`: the id may hold `.`, the number may not, so the id ends at
/// the segment's last `.`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk(format = "DOC#{id}.{n}")]
#[sk(format = "{active}x{rank:unpadded}@latest")]
struct Doc {
    id: String,
    n: u16,
    active: bool,
    rank: i64,
}

#[test]
fn values_inside_a_segment_parse_back() {
    let d = Doc {
        id: "v1.2".into(),
        n: 7,
        active: true,
        rank: -12,
    };
    assert_eq!(d.pk(), "DOC#v1.2.00007");
    assert_eq!(
        Doc::parse_pk("DOC#v1.2.00007").unwrap(),
        ("v1.2".to_owned(), 7)
    );
    // `x` never appears in `true`/`false`: the bool ends at the first `x`.
    assert_eq!(d.sk(), "truex-12@latest");
    assert_eq!(Doc::parse_sk("truex-12@latest").unwrap(), (true, -12));
    assert!(!Doc::is_sk("truex-12"));
    assert!(!Doc::is_sk("truex-012@latest"));
    assert!(!Doc::is_sk("truex+12@latest"));
    assert_eq!(Doc::sk_of(false, 0i64), "falsex0@latest");
}

#[test]
fn unpadded_composites_still_narrow_by_equality() {
    let q = Doc::primary("a", 1u16).active().eq(true).build();
    assert_eq!(
        q.sort_condition().map(|(_, c)| c.clone()),
        Some(entity_core::SortCondition::BeginsWith("truex".into()))
    );
    let q = Doc::primary("a", 1u16)
        .active()
        .eq(true)
        .rank()
        .eq(5i64)
        .build();
    assert_eq!(
        q.sort_condition().map(|(_, c)| c.clone()),
        Some(entity_core::SortCondition::Eq("truex5@latest".into()))
    );
}
