//! Generated names never collide. Index logical names and composite names
//! become method and type names; two generated items with one name would be
//! rustc's "duplicate definitions" on the derive, or, against a trait item,
//! a call that silently means something else.

use crate::ctxt::Ctxt;
use crate::model::names::{groups, key_names, setter_name, stage_type_name, unique_lookup_name};
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
    if !stage_methods(cx, entity, &entity.primary) {
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
    ok && stage_methods(cx, entity, index)
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

/// The methods of one accessor's stages: each stage has the common ones,
/// composite `k`'s, and at stage 0 the whole-key comparisons.
fn stage_methods(cx: &Ctxt, entity: &Entity, index: &Index) -> bool {
    let Some(sk) = &index.sk else { return true };
    let mut ok = true;
    for (k, c) in sk.composites.iter().enumerate() {
        let mut taken = Taken {
            names: ["descending", "ascending", "limit", "build"]
                .iter()
                .map(|n| (n.to_string(), format!("the query's `{n}`")))
                .collect(),
        };
        if k == 0 && sk.composites.len() >= 2 {
            for n in ["sk_gt", "sk_gte", "sk_lt", "sk_lte", "sk_between"] {
                taken
                    .names
                    .push((n.to_owned(), format!("the whole-sort-key comparison `{n}`")));
            }
        }
        let field = entity.fields[c.field].ident.to_string();
        let field = field.trim_start_matches("r#");
        let owner = format!("sort key composite `{field}` of `{}`", index.name);
        let fix = "rename the field";
        // One error per composite: the first name that collides.
        let ops = ["eq", "begins_with", "gt", "gte", "lt", "lte", "between"];
        let names = std::iter::once(field.to_owned()).chain(ops.map(|op| format!("{field}_{op}")));
        for name in names {
            if !taken.take(cx, name, owner.clone(), c.token, fix) {
                ok = false;
                break;
            }
        }
    }
    ok
}
