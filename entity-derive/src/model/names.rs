//! The names the derive generates (methods, types), computed in one place
//! so that code generation uses them and the collision check sees them all.

use crate::model::{Entity, Index};
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
    crate::attr::RenameRule::PascalCase.apply(name)
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

/// The fields no update changes: table key composites, the fields the
/// client writes (`created_at`, `updated_at`, `version`), and unique
/// constraints' fields (their sentinels move only with `put`). In a
/// secondary index key they are not part of a group: the group's setter
/// takes them and guards the update on them, as it does table key
/// composites.
pub fn fixed_fields(entity: &Entity) -> Vec<usize> {
    let mut fixed = table_key_fields(entity);
    fixed.extend(entity.client_written_fields());
    fixed.extend(entity.unique_fields());
    fixed.sort_unstable();
    fixed.dedup();
    fixed
}

/// The connected groups of secondary index key composites (fixed fields
/// excluded), each in field order. The composites of one key change
/// together; so do all of a sparse index's (one with an optional
/// composite): whether the item is in it depends on every one of them.
pub fn groups(entity: &Entity) -> Vec<Vec<usize>> {
    let table_key = fixed_fields(entity);
    let mut grouping = Grouping {
        group_of: vec![None; entity.fields.len()],
        groups: Vec::new(),
    };
    for index in &entity.indexes {
        let sparse = !index.optional_fields(&entity.fields).is_empty();
        for (_, key) in index.own_keys() {
            let members: Vec<usize> = if sparse {
                index.composite_fields()
            } else {
                key.composites.iter().map(|c| c.field).collect()
            };
            let members: Vec<usize> = members
                .into_iter()
                .filter(|f| !table_key.contains(f))
                .collect();
            grouping.join(&members);
        }
    }
    grouping.finish()
}

/// Groups being built: each field's group, and each group's fields (a
/// merged group is left empty).
struct Grouping {
    group_of: Vec<Option<usize>>,
    groups: Vec<Vec<usize>>,
}

impl Grouping {
    /// Puts `members` in one group, merging the groups they are in already.
    fn join(&mut self, members: &[usize]) {
        let mut target: Option<usize> = None;
        for &f in members {
            match (self.group_of[f], target) {
                (Some(g), None) => target = Some(g),
                (Some(g), Some(t)) if g != t => self.merge(g, t),
                _ => {}
            }
        }
        let target = match target {
            Some(t) => t,
            None if members.is_empty() => return,
            None => {
                self.groups.push(Vec::new());
                self.groups.len() - 1
            }
        };
        for &f in members {
            if self.group_of[f].is_none() {
                self.group_of[f] = Some(target);
                self.groups[target].push(f);
            }
        }
    }

    /// Moves group `from`'s fields into group `into`.
    fn merge(&mut self, from: usize, into: usize) {
        let moved = std::mem::take(&mut self.groups[from]);
        for &m in &moved {
            self.group_of[m] = Some(into);
        }
        self.groups[into].extend(moved);
    }

    /// The non-empty groups, each in field order.
    fn finish(mut self) -> Vec<Vec<usize>> {
        self.groups.retain(|g| !g.is_empty());
        for group in &mut self.groups {
            group.sort_unstable();
        }
        self.groups
    }
}

/// `set_priority_status`: the group setter of a group of fields.
pub fn setter_name(entity: &Entity, group: &[usize]) -> Ident {
    let names: Vec<String> = group.iter().map(|&f| field_name(entity, f)).collect();
    format_ident!("set_{}", names.join("_"))
}

/// `TaskSetPriorityStatus`: the update role of a group of fields, named
/// after its setter.
pub fn marker_name(entity: &Entity, group: &[usize]) -> Ident {
    let names: String = group
        .iter()
        .map(|&f| pascal(&field_name(entity, f)))
        .collect();
    format_ident!("{}Set{}", entity.ident, names)
}

/// `TaskByProject`: the marker type of an access pattern, the `INDEX` of
/// its stage type.
pub fn access_pattern_name(entity: &Entity, index: &Index) -> Ident {
    format_ident!("{}{}", entity.ident, pascal(&index.name.to_string()))
}

/// `TaskByOwnerView`: what a query of a projected index returns.
pub fn view_type_name(entity: &Entity, index: &Index) -> Ident {
    format_ident!("{}{}View", entity.ident, pascal(&index.name.to_string()))
}

/// `TaskByProjectQuery`: the stage type of an index's accessor.
pub fn stage_type_name(entity: &Entity, index: &Index) -> Ident {
    format_ident!("{}{}Query", entity.ident, pascal(&index.name.to_string()))
}

/// `TaskByProjectPriorityNext`: the trait a stage of `by_project` implements
/// when `priority` is the next sort key composite to fix
/// (`expand::stage_order`).
pub fn next_composite_trait_name(entity: &Entity, index: &Index, composite: &str) -> Ident {
    format_ident!(
        "{}{}{}Next",
        entity.ident,
        pascal(&index.name.to_string()),
        pascal(composite.trim_start_matches("r#"))
    )
}

/// `by_email`: the lookup of a unique constraint, if its name makes one.
pub fn unique_lookup_name(unique: &crate::model::managed::Unique) -> Option<Ident> {
    syn::parse_str::<Ident>(&format!("by_{}", unique.name)).ok()
}
