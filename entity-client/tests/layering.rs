//! The layers of entity-client, read from its sources.
//!
//! Every file of `src/` belongs to one layer of the table below. A file
//! imports only from its own layer or from a layer below it; no files
//! import each other in a circle, inside a layer or across layers; and no
//! operation builder (L5) imports another.
//!
//! An import is a `use crate::…`, `use super::…`, `use self::…` or
//! `use child::…` item, or a `crate::…`, `super::…` or `child::…` path
//! written in the code; a name that a module only hands on (`use`) is followed to the file
//! that defines it. A module's `pub use` of its own children is the
//! module's face, not an arrow, and a `$crate::…` path in a
//! `macro_rules!` body belongs to the files the macro is expanded in. Test
//! modules (`#[cfg(test)] mod … { … }`) are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first: a path prefix (a file, or a folder ending in
/// `/`) and its layer. The longest prefix that matches a file wins.
const LAYERS: &[(&str, usize)] = &[
    // L0 vocabulary: errors, the engine, DynamoDB's limits, key sets,
    // cursors, the guides, the scope traits. It imports nothing of the
    // crate above it.
    ("error/", 0),
    ("engine.rs", 0),
    ("limits.rs", 0),
    ("keys.rs", 0),
    ("cursor.rs", 0),
    ("guide.rs", 0),
    ("scoping.rs", 0),
    // L1 client core: the client, its configuration, policies (the
    // capacity budget of a rate limit among them), clock and the typed
    // extensions the layers above keep on it.
    ("client.rs", 1),
    ("rate_limit/mod.rs", 1),
    ("rate_limit/bucket.rs", 1),
    // L2 request: what a request holds (`Returning`, `Expressions`) and how
    // its expressions render.
    ("ops/mod.rs", 2),
    ("ops/render.rs", 2),
    // L3 features: managed attributes, lifecycle, unique values, history
    // snapshots, visibility; one file each, importing no builder.
    ("ops/managed.rs", 3),
    ("ops/lifecycle.rs", 3),
    ("ops/unique.rs", 3),
    ("ops/history.rs", 3),
    ("ops/visibility.rs", 3),
    // L4 execution: one write sent (single, a whole item's write, a history
    // entity's update), read-modify-write, the `Operation` trait and
    // explain, paging, batch chunks and their retries, and the interceptors
    // with the request facts they read (trace; stats' records and
    // extraction).
    ("ops/single.rs", 4),
    ("ops/history_update.rs", 4),
    ("ops/whole_write.rs", 4),
    // One stored item rewritten as its entity's current version: what a
    // migration does to each, and an update to an older one first.
    ("ops/rewrite.rs", 4),
    ("ops/batch/mod.rs", 4),
    ("ops/batch/seen.rs", 4),
    ("ops/batch/write_chunk.rs", 4),
    ("ops/rmw.rs", 4),
    ("ops/operation.rs", 4),
    ("ops/explain.rs", 4),
    ("ops/paging.rs", 4),
    ("ops/sharded.rs", 4),
    // What each index projects, which create_table and drift both read.
    ("ops/table_projection.rs", 4),
    ("trace.rs", 4),
    ("stats/config.rs", 4),
    ("stats/record.rs", 4),
    ("stats/extract.rs", 4),
    // The rate limit's interceptor and its estimates, which read requests
    // and answers through stats' extraction.
    ("rate_limit/estimate.rs", 4),
    ("rate_limit/interceptor.rs", 4),
    // L5 operations: the builders, thin, importing no other builder.
    ("ops/", 5),
    // L6 front doors: tenancy, migrations, table drift (over create_table's
    // design), design documents, statistics, streams, the embedded server
    // and its fault proxy, hydrate, encryption.
    ("ops/migrate/", 6),
    ("ops/drift.rs", 6),
    ("ops/probe.rs", 6),
    // Hydrate composes two builders: a query's pages and batch gets.
    ("ops/hydrate.rs", 6),
    // Field encryption: an interceptor installed on a client's SDK.
    ("encryption.rs", 6),
    ("tenancy/", 6),
    ("design/", 6),
    ("stats/", 6),
    ("streams/", 6),
    ("faults/", 6),
    ("embedded.rs", 6),
    // L7 the crate root, which names the public API.
    ("lib.rs", 7),
];

/// The layer of the operation builders, which import no other file of it.
const BUILDERS: usize = 5;

/// Arrows the checks let through while they are being taken out: debt, to
/// be paid and never added to. An entry is `"from.rs -> to.rs"`; one the
/// code no longer has fails the test, so the list only shrinks.
const ALLOWED: &[&str] = &[];

fn layer(file: &str) -> usize {
    LAYERS
        .iter()
        .filter(|(prefix, _)| {
            if prefix.ends_with('/') {
                file.starts_with(prefix)
            } else {
                file == *prefix
            }
        })
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, layer)| layer)
        .unwrap_or_else(|| panic!("{file} is in no layer: add it to LAYERS"))
}

/// Every `.rs` file under `dir`, by its path relative to `root`.
fn sources(root: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.strip_prefix(root).unwrap().display().to_string();
            let name = name.replace('\\', "/");
            files.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The code without comments, string and char literals.
fn code(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            j += 1;
            while j < b.len() && !b[j..].starts_with(close.as_bytes()) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '"'), or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The code without its `#[cfg(test)] mod … { … }` blocks.
fn without_tests(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = &out[at + "#[cfg(test)]".len()..];
        let trimmed = rest.trim_start();
        let item = trimmed.starts_with("mod ") || trimmed.starts_with("pub(crate) mod ");
        let Some(open) = rest.find(['{', ';']) else {
            break;
        };
        let start = at + "#[cfg(test)]".len() + open;
        if !item || out.as_bytes()[start] == b';' {
            // Not an inline test module: drop the attribute alone.
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        }
        let mut depth = 0;
        let mut end = start;
        for (k, c) in out[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// The code without its `use` items (read on their own).
fn without_uses(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().next_back();
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        if before.is_some_and(|c| is_ident(c) || c == '#' || c == ':') {
            out.push_str(&rest[..at + 4]);
            rest = &rest[at + 4..];
        } else {
            out.push_str(&rest[..at]);
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// The module path of a file: `ops/batch/mod.rs` is `ops::batch`.
fn module(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a `use` tree names, each as segments.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    match tree.find('{') {
        None => {
            let mut path = prefix.to_vec();
            let tree = tree.split(" as ").next().unwrap();
            path.extend(
                tree.split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
            out.push(path);
        }
        Some(open) => {
            let mut path = prefix.to_vec();
            path.extend(
                tree[..open]
                    .split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
            let body = &tree[open + 1..tree.rfind('}').unwrap()];
            let mut depth = 0;
            let mut start = 0;
            for (k, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&path, &body[start..k], out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            expand(&path, &body[start..], out);
        }
    }
}

struct Crate {
    /// File by module path.
    files: BTreeMap<Vec<String>, String>,
    /// Code (without comments, strings and tests) by file.
    code: BTreeMap<String, String>,
}

impl Crate {
    /// Whether `file` defines `name` itself.
    fn defines(&self, file: &str, name: &str) -> bool {
        let code = &self.code[file];
        [
            "fn ",
            "struct ",
            "enum ",
            "trait ",
            "type ",
            "const ",
            "static ",
            "union ",
            "mod ",
            "macro_rules! ",
        ]
        .iter()
        .any(|kw| {
            code.match_indices(&format!("{kw}{name}")).any(|(at, m)| {
                let before = code[..at].chars().next_back();
                let after = code[at + m.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            })
        })
    }

    /// The `use` paths of a file, made absolute (external ones dropped),
    /// with whether each is a `pub use`.
    fn uses(&self, file: &str) -> Vec<(Vec<String>, bool)> {
        let code = &self.code[file];
        let me = module(file);
        let mut out = Vec::new();
        for (at, _) in code.match_indices("use ") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| is_ident(c) || c == '#' || c == ':') {
                continue;
            }
            let head = code[..at].trim_end();
            let public = head.ends_with("pub") || head.ends_with(')') && head.contains("pub(");
            let public = public && {
                let line = head.rsplit('\n').next().unwrap_or("");
                line.trim_start().starts_with("pub")
            };
            let Some(end) = code[at..].find(';') else {
                continue;
            };
            let tree: String = code[at + 4..at + end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let mut paths = Vec::new();
            expand(&[], &tree, &mut paths);
            for path in paths {
                if let Some(path) = self.absolute(&me, &path) {
                    out.push((path, public));
                }
            }
        }
        out
    }

    /// `path`, written in module `me`, from the crate root; `None` when it
    /// names another crate.
    fn absolute(&self, me: &[String], path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?.as_str();
        let mut abs: Vec<String>;
        let mut rest = path;
        match first {
            "crate" => {
                abs = Vec::new();
                rest = &path[1..];
            }
            "self" => {
                abs = me.to_vec();
                rest = &path[1..];
            }
            "super" => {
                abs = me.to_vec();
                while rest.first().map(String::as_str) == Some("super") {
                    abs.pop();
                    rest = &rest[1..];
                }
            }
            child => {
                let mut inner = me.to_vec();
                inner.push(child.to_string());
                if !self.files.contains_key(&inner) {
                    return None;
                }
                abs = me.to_vec();
            }
        }
        abs.extend(rest.iter().filter(|s| *s != "self").cloned());
        Some(abs)
    }

    /// The file an absolute path leads to, following names handed on by
    /// `use`.
    fn resolve(&self, path: &[String], depth: usize) -> Option<String> {
        let n = (0..=path.len())
            .rev()
            .find(|n| self.files.contains_key(&path[..*n]))?;
        let file = &self.files[&path[..n]];
        let Some(name) = path.get(n) else {
            return Some(file.clone());
        };
        if depth > 8 || name == "*" || self.defines(file, name) {
            return Some(file.clone());
        }
        for (used, _) in self.uses(file) {
            if used.last() == Some(name) && used.as_slice() != path {
                let mut next = used.clone();
                next.extend(path[n + 1..].iter().cloned());
                return self.resolve(&next, depth + 1);
            }
        }
        Some(file.clone())
    }

    /// Every arrow: (from, to) with the paths that make it.
    fn arrows(&self) -> BTreeMap<(String, String), BTreeSet<String>> {
        let mut arrows: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for (file, code) in &self.code {
            let me = module(file);
            let mut paths = Vec::new();
            for (path, public) in self.uses(file) {
                let child = path.len() > me.len() && path[..me.len()] == me[..];
                if !(public && child) {
                    paths.push(path);
                }
            }
            // `crate::a::b`, `super::a` and `child::a` written in the code.
            let children: Vec<String> = self
                .files
                .keys()
                .filter(|m| m.len() == me.len() + 1 && m[..me.len()] == me[..])
                .map(|m| format!("{}::", m[me.len()]))
                .collect();
            let starts = ["crate::".to_string(), "super::".to_string()];
            let code = without_uses(code);
            for start in starts.iter().chain(&children) {
                for (at, _) in code.match_indices(start.as_str()) {
                    // `$crate::…` in a `macro_rules!` body is a path of the
                    // file the macro is expanded in, not of this one.
                    let before = code[..at].chars().next_back();
                    if before.is_some_and(|c| is_ident(c) || c == ':' || c == '$') {
                        continue;
                    }
                    let tail: String = code[at..]
                        .chars()
                        .take_while(|c| is_ident(*c) || *c == ':')
                        .collect();
                    let tail = tail.trim_end_matches(':');
                    if tail == start.trim_end_matches(':') {
                        // `crate::{…}`: a `use` tree, read above.
                        continue;
                    }
                    let segs: Vec<String> = tail
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    if let Some(abs) = self.absolute(&me, &segs) {
                        paths.push(abs);
                    }
                }
            }
            for path in paths {
                if let Some(to) = self.resolve(&path, 0) {
                    if &to != file {
                        arrows
                            .entry((file.clone(), to))
                            .or_default()
                            .insert(path.join("::"));
                    }
                }
            }
        }
        arrows
    }
}

fn read() -> Crate {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut texts = BTreeMap::new();
    sources(&root, &root, &mut texts);
    let code = texts
        .iter()
        .map(|(f, t)| (f.clone(), without_tests(&code(t))))
        .collect();
    let files = texts.keys().map(|f| (module(f), f.clone())).collect();
    Crate { files, code }
}

/// The circles: strongly connected sets of more than one file (Tarjan).
fn circles(arrows: &BTreeMap<(String, String), BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in arrows.keys() {
        next.entry(from).or_default().push(to);
        next.entry(to).or_default();
    }
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(v: &'a str, next: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on.insert(v);
        for &w in &next[v] {
            if !s.index.contains_key(w) {
                visit(w, next, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut circle = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                circle.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if circle.len() > 1 {
                circle.sort();
                s.out.push(circle);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in next.keys() {
        if !s.index.contains_key(v) {
            visit(v, &next, &mut s);
        }
    }
    s.out
}

#[test]
fn no_arrow_runs_up_and_no_files_import_each_other_in_a_circle() {
    let mut arrows = read().arrows();
    let mut failures = Vec::new();
    // Debt: the listed arrows are taken out before the checks.
    for allowed in ALLOWED {
        let (from, to) = allowed.split_once(" -> ").unwrap();
        if arrows.remove(&(from.to_string(), to.to_string())).is_none() {
            failures.push(format!(
                "ALLOWED lists {allowed}, which the code no longer has: remove it"
            ));
        }
    }
    for ((from, to), paths) in &arrows {
        let (up, down) = (layer(from), layer(to));
        if up == BUILDERS && down == BUILDERS {
            let paths: Vec<_> = paths.iter().map(String::as_str).collect();
            failures.push(format!(
                "{from} imports {to}: a builder imports no other builder (move what they share down): {}",
                paths.join(", ")
            ));
        }
        if down > up {
            let paths: Vec<_> = paths.iter().map(String::as_str).collect();
            failures.push(format!(
                "{from} (L{up}) imports {to} (L{down}), a layer above it: {}",
                paths.join(", ")
            ));
        }
    }
    for circle in circles(&arrows) {
        let inside: Vec<String> = arrows
            .iter()
            .filter(|((from, to), _)| circle.contains(from) && circle.contains(to))
            .map(|((from, to), paths)| {
                let paths: Vec<_> = paths.iter().map(String::as_str).collect();
                format!("{from} -> {to}: {}", paths.join(", "))
            })
            .collect();
        failures.push(format!(
            "a circle of {} files:\n    {}",
            circle.len(),
            inside.join("\n    ")
        ));
    }
    assert!(
        failures.is_empty(),
        "{} layering failures:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// The reader sees the arrows the code has: a check that finds nothing
/// would pass for nothing.
#[test]
fn the_reader_sees_imports_paths_and_handed_on_names() {
    let arrows = read().arrows();
    let has = |from: &str, to: &str| arrows.contains_key(&(from.to_string(), to.to_string()));
    // `use crate::error::{…}`.
    assert!(has("ops/get.rs", "error/mod.rs"));
    // `use crate::Client`, handed on by lib.rs from client.rs.
    assert!(has("ops/get.rs", "client.rs"));
    // `use super::…` and `crate::…` written in the code.
    assert!(has("ops/get.rs", "ops/visibility.rs"));
    assert!(has("ops/get.rs", "trace.rs"));
    // A parent module's own use of a child: `use extract::Labeler`, and
    // the path `interceptor::StatsInterceptor`.
    assert!(has("stats/mod.rs", "stats/extract.rs"));
    assert!(has("stats/mod.rs", "stats/interceptor.rs"));
    // The face of lib.rs is no arrow.
    assert!(!has("lib.rs", "client.rs"));
    assert!(arrows.len() > 150, "{} arrows", arrows.len());
}
