//! The names the derive generates (methods, types), computed in one place
//! so that code generation uses them and the collision check sees them all.

use crate::model::{Entity, Index, IndexKind};
use proc_macro2::Span;
use quote::format_ident;
use syn::Ident;

/// Method-name prefix of an index's keys: none for the table, `by_x_` for an
/// index.
pub fn key_prefix(index: &Index) -> String {
    if index.physical.is_none() {
        String::new()
    } else {
        format!("{}_", index.name)
    }
}

/// The names of one key's generated functions.
pub struct KeyNames {
    /// `pk` / `by_project_sk`: the instance composer.
    pub compose: Ident,
    /// `pk_of`: the composer from arguments.
    pub compose_of: Ident,
    /// `parse_pk`.
    pub parse: Ident,
    /// `is_pk`.
    pub guard: Ident,
}

pub fn key_names(index: &Index, which: &str) -> KeyNames {
    let base = format!("{}{which}", key_prefix(index));
    KeyNames {
        compose: Ident::new(&base, Span::call_site()),
        compose_of: format_ident!("{}_of", base),
        parse: format_ident!("parse_{}", base),
        guard: format_ident!("is_{}", base),
    }
}

/// `by_project` → `ByProject`, for generated type names.
pub fn pascal(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

pub fn field_name(entity: &Entity, f: usize) -> String {
    entity.fields[f]
        .ident
        .to_string()
        .trim_start_matches("r#")
        .to_owned()
}

pub fn table_key_fields(entity: &Entity) -> Vec<usize> {
    entity
        .primary
        .keys()
        .flat_map(|(_, key)| key.composites.iter().map(|c| c.field))
        .collect()
}

/// The connected groups of secondary index key composites (table key
/// composites excluded), each in field order.
pub fn groups(entity: &Entity) -> Vec<Vec<usize>> {
    let table_key = table_key_fields(entity);
    let mut group_of: Vec<Option<usize>> = vec![None; entity.fields.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for index in &entity.indexes {
        for (which, key) in index.keys() {
            if index.kind == IndexKind::Local && which == "pk" {
                continue;
            }
            let members: Vec<usize> = key
                .composites
                .iter()
                .map(|c| c.field)
                .filter(|f| !table_key.contains(f))
                .collect();
            let mut target: Option<usize> = None;
            for &f in &members {
                match (group_of[f], target) {
                    (Some(g), None) => target = Some(g),
                    (Some(g), Some(t)) if g != t => {
                        let moved = std::mem::take(&mut groups[g]);
                        for &m in &moved {
                            group_of[m] = Some(t);
                        }
                        groups[t].extend(moved);
                    }
                    _ => {}
                }
            }
            let target = match target {
                Some(t) => t,
                None if members.is_empty() => continue,
                None => {
                    groups.push(Vec::new());
                    groups.len() - 1
                }
            };
            for &f in &members {
                if group_of[f].is_none() {
                    group_of[f] = Some(target);
                    groups[target].push(f);
                }
            }
        }
    }
    groups.retain(|g| !g.is_empty());
    for group in &mut groups {
        group.sort_unstable();
    }
    groups
}

/// `set_priority_status`: the group setter of a group of fields.
pub fn setter_name(entity: &Entity, group: &[usize]) -> Ident {
    let names: Vec<String> = group.iter().map(|&f| field_name(entity, f)).collect();
    format_ident!("set_{}", names.join("_"))
}

/// `TaskByProjectQuery`: the stage type of an index's accessor.
pub fn stage_type_name(entity: &Entity, index: &Index) -> Ident {
    format_ident!("{}{}Query", entity.ident, pascal(&index.name.to_string()))
}
