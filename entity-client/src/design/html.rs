//! The design as one self-contained HTML page: inline CSS, an inline
//! script, no external assets. Per index, the entities' key templates and
//! a grid of the sample items in it, grouped by partition, collection
//! members marked.

use super::workbench::dynamodb_json;
use super::{
    collection_name, collections_on, entity_label, physical_indexes, templates, Design,
    EntityDesign, PhysicalIndex,
};
use crate::error::Result;
use crate::TableDesign;
use aws_sdk_dynamodb::types::AttributeValue;
use entity_core::Item;
use std::fmt::Write as _;

impl Design {
    /// A self-contained HTML page (inline CSS, no external assets): per
    /// index (the table, each GSI and LSI), the entities' key templates and
    /// a grid of the sample items' keys, collections marked. A script in
    /// the page counts the items, partitions and collection items of each
    /// index into `<pre id="summary">`.
    pub fn html(&self) -> Result<String> {
        let table = self.checked()?;
        Ok(page(self, &table))
    }
}

const STYLE: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1f2328}\
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #d0d7de}\
table{border-collapse:collapse;margin:.6em 0}\
th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;vertical-align:top}\
th{background:#f6f8fa}code{font:12px ui-monospace,monospace}\
tr.band1 td{background:#f3f7ff}tr.in-collection td.entity{box-shadow:inset 4px 0 #8250df}\
.collection{display:inline-block;background:#8250df;color:#fff;border-radius:1em;padding:0 .6em;font-size:12px}\
.kind{color:#656d76;font-weight:normal}.empty{color:#656d76}#summary{background:#f6f8fa;padding:.6em}";

/// Counts, per index section, the item rows, their distinct partitions and
/// the rows of collection members, into `#summary` (what the browser test
/// reads).
const SCRIPT: &str = "\
const summary = {};\
for (const section of document.querySelectorAll('section[data-index]')) {\
  const rows = [...section.querySelectorAll('tr.item')];\
  summary[section.dataset.index] = {\
    items: rows.length,\
    partitions: new Set(rows.map(r => r.dataset.pk)).size,\
    collection_items: rows.filter(r => r.classList.contains('in-collection')).length,\
  };\
}\
document.getElementById('summary').textContent = JSON.stringify(summary);";

/// The page.
pub(super) fn page(design: &Design, table: &TableDesign) -> String {
    let title = escape(&design.table);
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{title}: table design</title><style>{STYLE}</style></head><body>\n\
         <h1>Table <code>{title}</code></h1>\n"
    );
    if !design.description.is_empty() {
        let _ = writeln!(out, "<p>{}</p>", escape(&design.description));
    }
    let entities: Vec<String> = (design.entities.iter())
        .map(|e| format!("<code>{}</code>", escape(&entity_label(e.model))))
        .collect();
    let _ = writeln!(out, "<p>Entities: {}</p>", entities.join(", "));
    for index in physical_indexes(table) {
        section(&mut out, design, &index);
    }
    let _ = write!(
        out,
        "<h2>Summary</h2>\n<pre id=\"summary\"></pre>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    out
}

fn section(out: &mut String, design: &Design, index: &PhysicalIndex) {
    let label = escape(index.label());
    let keys = escape(
        &index
            .pk
            .iter()
            .chain(&index.sk)
            .cloned()
            .collect::<Vec<_>>()
            .join(", "),
    );
    let _ = writeln!(
        out,
        "<section data-index=\"{label}\"><h2>{label} <span class=\"kind\">{} on {keys}</span></h2>",
        index.kind
    );
    let mut collections: Vec<String> = Vec::new();
    for entity in &design.entities {
        for spec in collections_on(entity, index.name.as_deref()) {
            let name = collection_name(spec.path);
            if !collections.contains(&name) {
                collections.push(name);
            }
        }
    }
    if !collections.is_empty() {
        let badges: Vec<String> = (collections.iter())
            .map(|c| format!("<span class=\"collection\">{}</span>", escape(c)))
            .collect();
        let _ = writeln!(out, "<p>Collections: {}</p>", badges.join(" "));
    }
    key_templates(out, design, index);
    items(out, design, index);
    out.push_str("</section>\n");
}

/// Each entity's accessor on this index and its key templates.
fn key_templates(out: &mut String, design: &Design, index: &PhysicalIndex) {
    out.push_str(
        "<table class=\"templates\"><tr><th>entity</th><th>accessor</th>\
         <th>pk template</th><th>sk template</th></tr>\n",
    );
    for entity in &design.entities {
        for logical in index.of(entity.model) {
            let (pk, sk) = templates(logical);
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}::{}</code></td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                escape(&entity_label(entity.model)),
                escape(entity.model.name),
                escape(logical.name),
                escape(&pk),
                escape(&sk)
            );
        }
    }
    out.push_str("</table>\n");
}

/// The sample items in this index, sorted by key, banded by partition.
fn items(out: &mut String, design: &Design, index: &PhysicalIndex) {
    let mut rows: Vec<(Vec<String>, Vec<String>, &EntityDesign)> = Vec::new();
    for entity in &design.entities {
        for item in entity.samples.iter().filter(|item| index.holds(item)) {
            rows.push((values(item, &index.pk), values(item, &index.sk), entity));
        }
    }
    if rows.is_empty() {
        out.push_str("<p class=\"empty\">No sample items in this index.</p>\n");
        return;
    }
    rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let head: Vec<String> = (index.pk.iter().chain(&index.sk))
        .map(|a| format!("<th>{}</th>", escape(a)))
        .collect();
    let _ = writeln!(
        out,
        "<table class=\"items\"><tr>{}<th>entity</th><th>collection</th></tr>",
        head.concat()
    );
    let mut band = 0;
    let mut previous: Option<&Vec<String>> = None;
    for (pk, sk, entity) in &rows {
        let first = previous != Some(pk);
        if first && previous.is_some() {
            band = 1 - band;
        }
        previous = Some(pk);
        let specs = collections_on(entity, index.name.as_deref());
        let class = if specs.is_empty() {
            ""
        } else {
            " in-collection"
        };
        let pk_text = pk.join(" · ");
        let mut cells = String::new();
        for value in pk {
            // The partition's value once, on its first row.
            let shown = if first { escape(value) } else { String::new() };
            let _ = write!(cells, "<td><code>{shown}</code></td>");
        }
        for value in sk {
            let _ = write!(cells, "<td><code>{}</code></td>", escape(value));
        }
        let badges: Vec<String> = (specs.iter())
            .map(|s| {
                format!(
                    "<span class=\"collection\">{}</span>",
                    escape(&collection_name(s.path))
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr class=\"item band{band}{class}\" data-pk=\"{}\">{cells}<td class=\"entity\">{}</td><td>{}</td></tr>",
            escape(&pk_text),
            escape(entity.model.name),
            badges.join(" ")
        );
    }
    out.push_str("</table>\n");
}

fn values(item: &Item, attributes: &[String]) -> Vec<String> {
    (attributes.iter())
        .map(|a| item.get(a).map(display).unwrap_or_default())
        .collect()
}

/// Text safe in element content and in double-quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A value as text: strings and numbers as they are, the rest as
/// DynamoDB JSON.
fn display(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        other => dynamodb_json(other).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }
}
