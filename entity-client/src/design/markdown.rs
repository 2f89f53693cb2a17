//! The access-pattern table in Markdown:
//! one row per accessor, with its index, key templates and operation.

use super::{collection_name, entity_label, templates, Design};
use crate::error::Result;
use std::fmt::Write as _;

impl Design {
    /// The access patterns, a Markdown table: one row per accessor (each
    /// entity's `key`, `primary`, index and unique lookups, and each
    /// collection), with its index, key templates and operation.
    pub fn markdown(&self) -> Result<String> {
        self.checked()?;
        Ok(table(self))
    }
}

/// The table, header included.
pub(super) fn table(design: &Design) -> String {
    let mut out = String::from(
        "| entity | accessor | index | pk template | sk template | operation |\n\
         |---|---|---|---|---|---|\n",
    );
    for entity in &design.entities {
        let model = entity.model;
        let label = entity_label(model);
        let (pk, sk) = templates(&model.primary);
        row(
            &mut out,
            &label,
            &accessor(model.name, "key"),
            "table",
            &pk,
            &sk,
            "GetItem",
        );
        let query = "Query (sort key composites left to right)";
        row(
            &mut out,
            &label,
            &accessor(model.name, "primary"),
            "table",
            &pk,
            &sk,
            query,
        );
        for index in model.indexes {
            let (pk, sk) = templates(index);
            let name = index.index_name.unwrap_or(index.name);
            let collections: Vec<String> = (entity.collections.iter())
                .filter(|spec| spec.index == index.name)
                .map(|spec| format!(", collection {}", collection_name(spec.path)))
                .collect();
            let where_ = format!("{name}{}", collections.concat());
            row(
                &mut out,
                &label,
                &accessor(model.name, index.name),
                &where_,
                &pk,
                &sk,
                query,
            );
        }
        for unique in model.managed.unique {
            let lookup = format!(
                "GetItem x2 (the {} sentinel, then the item)",
                unique.fields.join(", ")
            );
            row(
                &mut out,
                &label,
                &accessor(model.name, &format!("by_{}", unique.name)),
                "table",
                "",
                "",
                &lookup,
            );
        }
    }
    collections(design, &mut out);
    out
}

/// One row per collection level: its members, index and sort key prefix.
fn collections(design: &Design, out: &mut String) {
    let mut seen: Vec<(Option<&str>, &[&str])> = Vec::new();
    for entity in &design.entities {
        for spec in entity.collections {
            for depth in 1..=spec.path.len() {
                let path = &spec.path[..depth];
                if seen.contains(&(spec.index_name, path)) {
                    continue;
                }
                seen.push((spec.index_name, path));
                let members: Vec<&str> = (design.entities.iter())
                    .filter(|e| {
                        (e.collections.iter())
                            .any(|s| s.index_name == spec.index_name && s.path.starts_with(path))
                    })
                    .map(|e| e.model.name)
                    .collect();
                let pk = (entity.model.index(spec.index))
                    .map(|index| templates(index).0)
                    .unwrap_or_default();
                let sk = match spec.collection_prefixes.get(depth - 1) {
                    Some(prefix) if spec.clustered => format!("begins_with {prefix}#"),
                    _ => String::new(),
                };
                let name = collection_name(path);
                row(
                    out,
                    &members.join(", "),
                    &format!("collection {name}"),
                    spec.index_name.unwrap_or("table"),
                    &pk,
                    &sk,
                    "Query (collection: every member's items)",
                );
            }
        }
    }
}

fn accessor(entity: &str, name: &str) -> String {
    format!("`{entity}::{name}(..)`")
}

/// A row; templates in code spans, `|` escaped in every cell.
fn row(out: &mut String, entity: &str, accessor: &str, index: &str, pk: &str, sk: &str, op: &str) {
    let code = |text: &str| match text {
        "" => "—".to_owned(),
        text => format!("`{text}`"),
    };
    let cells = [
        entity.to_owned(),
        accessor.to_owned(),
        index.to_owned(),
        code(pk),
        code(sk),
        op.to_owned(),
    ];
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}
