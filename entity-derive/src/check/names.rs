//! Generated names never collide. Index logical names and composite names
//! become method and type names; two generated items with one name would be
//! rustc's "duplicate definitions" on the derive, or, against a trait item,
//! a call that silently means something else.

use crate::ctxt::Ctxt;
use crate::model::names::{
    access_pattern_name, field_name, groups, key_names, next_composite_trait_name, setter_name,
    stage_type_name, unique_lookup_name,
};
use crate::model::{Entity, Index, IndexKind};
use proc_macro2::Span;

/// What the fallback expansion leaves out: items whose names collided.
#[derive(Default)]
pub struct Skipped {
    /// Positions in `Entity::indexes`.
    pub indexes: Vec<usize>,
    /// Group setters, by their first field.
    pub setters: Vec<usize>,
    /// Indexes (logical names) whose query stages have colliding methods.
    pub stages: Vec<String>,
    /// Unique constraints (positions) whose lookup collides or has no name.
    pub unique: Vec<usize>,
}

/// Names taken so far, each with what took it.
struct Taken {
    names: Vec<(String, String)>,
}

impl Taken {
    /// Takes `name` for `owner`; on a clash reports it at `span` and
    /// returns false.
    fn take(&mut self, cx: &Ctxt, name: String, owner: String, span: Span, fix: &str) -> bool {
        if let Some((_, earlier)) = self.names.iter().find(|(n, _)| *n == name) {
            cx.error_at(
                span,
                format!("{owner} would generate `{name}`, which is already {earlier}; {fix}"),
            );
            return false;
        }
        self.names.push((name, owner));
        true
    }
}

pub fn check(cx: &Ctxt, entity: &Entity) -> Skipped {
    let mut skipped = Skipped::default();
    let mut methods = fixed_methods(entity);
    let mut types = Taken {
        names: vec![(
            format!("{}Fields", entity.ident),
            "the field handles' type".to_owned(),
        )],
    };
    for group in groups(entity) {
        let name = setter_name(entity, &group).to_string();
        let owner = format!(
            "the group setter of field `{}`",
            entity.fields[group[0]].ident
        );
        let span = entity.fields[group[0]].ident.span();
        if !methods.take(cx, name, owner, span, "rename one of the fields") {
            skipped.setters.push(group[0]);
        }
    }
    if !stage_methods(cx, entity, &entity.primary)
        || !stage_types(cx, entity, &entity.primary, &mut types)
    {
        skipped.stages.push(entity.primary.name.to_string());
    }
    for (position, index) in entity.indexes.iter().enumerate() {
        // A repeated index name has its own error (`unique_index_names`).
        let repeated = index.name == "primary"
            || entity.indexes[..position]
                .iter()
                .any(|i| i.name == index.name);
        if repeated || !index_names_are_free(cx, entity, index, &mut methods, &mut types) {
            skipped.indexes.push(position);
        }
    }
    for (position, unique) in entity.unique.iter().enumerate() {
        // A name that makes no identifier, or a repeated one, has its own
        // error (`check::managed`).
        let repeated = entity.unique[..position]
            .iter()
            .any(|u| u.name == unique.name);
        let Some(lookup) = unique_lookup_name(unique).filter(|_| !repeated) else {
            skipped.unique.push(position);
            continue;
        };
        let owner = format!("unique constraint `{}`", unique.name);
        let fix = "give the constraint another `name = \"...\"`";
        if !methods.take(cx, lookup.to_string(), owner, unique.name_span, fix) {
            skipped.unique.push(position);
        }
    }
    skipped
}

/// Takes the names of an index's accessor, key functions, stage type and
/// stage methods, stopping at the first taken already.
fn index_names_are_free(
    cx: &Ctxt,
    entity: &Entity,
    index: &Index,
    methods: &mut Taken,
    types: &mut Taken,
) -> bool {
    let fix = "give the index another logical name";
    let owner = format!("index `{}`", index.name);
    let span = index.name.span();
    let mut ok = methods.take(cx, index.name.to_string(), owner.clone(), span, fix);
    for name in key_method_names(index) {
        ok = ok && methods.take(cx, name, owner.clone(), span, fix);
    }
    let stage = stage_type_name(entity, index).to_string();
    ok = ok && types.take(cx, stage, owner, span, fix);
    ok && stage_methods(cx, entity, index) && stage_types(cx, entity, index, types)
}

/// The entity's own items: the table key's functions, `key`, `fields`, the
/// table accessor and the `Entity` trait's items.
fn fixed_methods(entity: &Entity) -> Taken {
    let mut names: Vec<(String, String)> = Vec::new();
    for name in ["key", "fields", "primary"] {
        names.push((name.to_owned(), format!("the entity's `{name}`")));
    }
    for name in [
        "MODEL",
        "write_item",
        "to_item",
        "from_item",
        "primary_key",
        "key_fields",
        "unique_values",
    ] {
        names.push((name.to_owned(), format!("the `Entity` trait's `{name}`")));
    }
    for name in key_method_names(&entity.primary) {
        let owner = format!("the table key's `{name}`");
        names.push((name, owner));
    }
    Taken { names }
}

/// `by_project_sk`, `by_project_sk_of`, `parse_by_project_sk`,
/// `is_by_project_sk` for each key the index composes.
fn key_method_names(index: &Index) -> Vec<String> {
    let mut out = Vec::new();
    for (which, _) in index.keys() {
        if index.kind == IndexKind::Local && which == "pk" {
            continue; // an LSI's partition key is the table's
        }
        let names = key_names(index, which);
        for ident in [names.compose, names.compose_of, names.parse, names.guard] {
            out.push(ident.to_string());
        }
    }
    out
}

/// The methods of one accessor's stages: the common ones, the whole sort
/// key's `sk`, and one per composite, which share one stage from the second
/// composite on (`expand::stage_order`), so none may repeat another's.
fn stage_methods(cx: &Ctxt, entity: &Entity, index: &Index) -> bool {
    let composites = sort_composites(index);
    let mut taken = Taken {
        names: ["descending", "ascending", "limit", "build"]
            .iter()
            .map(|n| (n.to_string(), format!("the query's `{n}`")))
            .collect(),
    };
    if index.sk.is_some() && composites.len() >= 2 {
        taken
            .names
            .push(("sk".to_owned(), "the whole sort key's `sk`".to_owned()));
    }
    let mut ok = true;
    for (field, token) in composites {
        let field = field_name(entity, field);
        let owner = format!("sort key composite `{field}` of `{}`", index.name);
        ok &= taken.take(cx, field, owner, token, "rename the field");
    }
    ok
}

/// The sort key composites of an access pattern (a multi-attribute index's
/// sort attributes), each with its token.
fn sort_composites(index: &Index) -> Vec<(usize, Span)> {
    match (&index.sk, &index.multi_attribute) {
        (Some(sk), _) => sk.composites.iter().map(|c| (c.field, c.token)).collect(),
        (None, Some(multi)) => multi.sk.iter().map(|a| (a.field, a.token)).collect(),
        (None, None) => Vec::new(),
    }
}

/// The types an access pattern's stages bring: its marker (`TaskByProject`)
/// and the traits that order its composites (`expand::stage_order`), one
/// per composite after the first.
fn stage_types(cx: &Ctxt, entity: &Entity, index: &Index, types: &mut Taken) -> bool {
    let fix = "give the index another logical name";
    let owner = format!("index `{}`", index.name);
    let traits = sort_composites(index)
        .into_iter()
        .skip(1)
        .map(|(field, _)| next_composite_trait_name(entity, index, &field_name(entity, field)));
    std::iter::once(access_pattern_name(entity, index))
        .chain(traits)
        .all(|name| types.take(cx, name.to_string(), owner.clone(), index.name.span(), fix))
}
