//! The module graph of `src/`, read from the source: no import circle, and every edge points down
//! the layers of docs/design.md (vocabulary and bytes, then the dialects, then the application).
//!
//! An edge is every `crate::…`, `super::…` and `self::…` path, in `use` lines and inline, and every
//! path that starts with a child module's name; `mod` declarations are not edges. Test code
//! (`#[cfg(test)]` modules) is left out: tests may reach anywhere.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // tests fail by panicking

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A module by its path below the crate root: `[]` is `lib.rs`, `["codex", "view"]` is
/// `codex/view.rs`.
type Module = Vec<String>;

/// Every module of `src/` (but `main.rs`, the binary) with its source, test modules cut off.
fn modules() -> BTreeMap<Module, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<Module, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            if path.is_dir() {
                let mut inner = prefix.to_vec();
                inner.push(name);
                walk(&path, &inner, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || (prefix.is_empty() && name == "main") {
                continue;
            }
            let mut module = prefix.to_vec();
            if name != "mod" && name != "lib" {
                module.push(name);
            }
            out.insert(module, without_tests(&fs::read_to_string(&path).unwrap()));
        }
    }
    let mut out = BTreeMap::new();
    walk(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &[],
        &mut out,
    );
    out
}

/// The source without comments and without the `#[cfg(test)] mod …` at its end.
fn without_tests(source: &str) -> String {
    let mut kept = String::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        // A test module (`mod tests`, `pub(crate) mod testing {`) ends what is read: test code
        // may reach anywhere, and an inline module's `super` is not the file's.
        if trimmed.starts_with("#[cfg(test)]")
            && lines.peek().is_some_and(|next| {
                let next = next.trim();
                (next.starts_with("mod ") || next.contains(" mod ")) && next.ends_with('{')
            })
        {
            break;
        }
        let code = match line.find("//") {
            // A `//` inside a string literal is rare enough in `src/` not to matter here; a
            // missed edge would only make this test weaker, never fail it wrongly.
            Some(at) => &line[..at],
            None => line,
        };
        kept.push_str(code);
        kept.push('\n');
    }
    kept
}

/// The paths the source names, each as its segments from the crate root (`super::`, `self::`
/// and child names resolved against `module`), with `use` groups expanded.
fn paths(module: &[String], source: &str, children: &BTreeSet<String>) -> Vec<Module> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts_word = at == 0 || !is_ident(bytes[at - 1]) && bytes[at - 1] != b':';
        if !starts_word || !is_ident(bytes[at]) {
            at += 1;
            continue;
        }
        let word_end = at + bytes[at..].iter().take_while(|&&b| is_ident(b)).count();
        let word = &source[at..word_end];
        let base: Option<Module> = match word {
            "crate" => Some(Vec::new()),
            "super" => Some(module[..module.len().saturating_sub(1)].to_vec()),
            "self" => Some(module.to_vec()),
            _ if children.contains(word) => Some(module.to_vec()),
            _ => None,
        };
        let rest = &source[word_end..];
        match base {
            Some(mut base) if rest.starts_with("::") => {
                if !matches!(word, "crate" | "super" | "self") {
                    base.push(word.to_owned());
                }
                let (consumed, tails) = tree(&rest[2..]);
                for tail in tails {
                    let mut path = base.clone();
                    path.extend(tail);
                    found.push(path);
                }
                at = word_end + 2 + consumed;
            }
            _ => at = word_end,
        }
    }
    found
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses a path's tail after `::` (`a::b`, `{a, b::{c, d}}`, `*`): how many bytes it took and
/// every full tail it names.
fn tree(text: &str) -> (usize, Vec<Vec<String>>) {
    let skip_space = |i: usize| i + text[i..].len() - text[i..].trim_start().len();
    let mut i = skip_space(0);
    if text[i..].starts_with('{') {
        i += 1;
        let mut tails = Vec::new();
        loop {
            i = skip_space(i);
            if text[i..].starts_with('}') {
                return (i + 1, tails);
            }
            if text[i..].starts_with(',') {
                i += 1;
                continue;
            }
            let (used, inner) = tree(&text[i..]);
            if used == 0 {
                return (i, tails);
            }
            tails.extend(inner);
            i += used;
        }
    }
    let len = text[i..].bytes().take_while(|&b| is_ident(b)).count();
    if len == 0 {
        // `*`, or the end of a path: the tail is empty.
        return (
            i + usize::from(text[i..].starts_with('*')),
            vec![Vec::new()],
        );
    }
    let segment = text[i..i + len].to_owned();
    i += len;
    if text[i..].starts_with("::") {
        let (used, inner) = tree(&text[i + 2..]);
        let tails = inner
            .into_iter()
            .map(|mut tail| {
                tail.insert(0, segment.clone());
                tail
            })
            .collect();
        return (i + 2 + used, tails);
    }
    (i, vec![vec![segment]])
}

/// The import graph: each module and the modules it names (itself and its own children left out).
fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules();
    let mut graph = BTreeMap::new();
    for (module, source) in &modules {
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m.last().unwrap().clone())
            .collect();
        let mut edges = BTreeSet::new();
        for path in paths(module, source, &children) {
            // The longest prefix that is a module file is the module named.
            let target = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|prefix| modules.contains_key(prefix))
                .unwrap();
            let own_child = target.len() == module.len() + 1 && target.starts_with(module);
            if target != *module && !own_child {
                edges.insert(target);
            }
        }
        graph.insert(module.clone(), edges);
    }
    graph
}

fn name(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

/// The layer a module belongs to: 0 vocabulary and bytes, 1 a dialect, 2 the application.
fn layer(module: &[String]) -> u8 {
    match module.first().map(String::as_str) {
        Some("codex" | "claude") => 1,
        Some(
            "chunk" | "escape" | "exit" | "findings" | "home" | "intern" | "json" | "pipeline"
            | "source" | "text" | "toolcall" | "view",
        ) => 0,
        _ => 2,
    }
}

/// The edges that break the layering, each as `from → to: why`.
fn forbidden(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    let mut broken = Vec::new();
    for (from, edges) in graph {
        for to in edges {
            let why = if layer(to) > layer(from) {
                Some("points up a layer")
            } else if layer(from) == 1 && from[0] != to[0] && layer(to) == 1 {
                Some("one dialect imports another")
            } else if from.first().is_some_and(|m| m == "render") && layer(to) == 1 {
                Some("rendering names a dialect")
            } else if to.first().is_some_and(|m| m == "cli")
                && !matches!(from.first().map(String::as_str), Some("app") | None)
            {
                Some("only app.rs and lib.rs name the command line")
            } else if to.is_empty() {
                Some("the crate root is the façade, imported by no module")
            } else {
                None
            };
            if let Some(why) = why {
                broken.push(format!("{} → {}: {why}", name(from), name(to)));
            }
        }
    }
    broken
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in &self.graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    component.push(name(w));
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    tarjan.found
}

#[test]
fn no_import_circle() {
    let found = cycles(&graph());
    assert!(found.is_empty(), "import circles: {found:#?}");
}

#[test]
fn every_edge_points_down_the_layers() {
    let broken = forbidden(&graph());
    assert!(broken.is_empty(), "forbidden edges:\n{}", broken.join("\n"));
}

#[test]
fn the_reader_sees_use_groups_super_and_inline_paths() {
    let children = BTreeSet::from(["words".to_owned()]);
    let module = vec!["codex".to_owned(), "view".to_owned()];
    let source = "use crate::{json::{self, Value}, render::Paint};\n\
                  fn f() { super::prep::run(); crate::text::plural(1); words::x(); }\n\
                  // crate::cli::Comment is not code\n";
    let found: BTreeSet<String> = paths(&module, &without_tests(source), &children)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    let expected = [
        "json::self",
        "json::Value",
        "render::Paint",
        "codex::prep::run",
        "text::plural",
        "codex::view::words::x",
    ];
    assert_eq!(found, expected.iter().map(|s| s.to_string()).collect());
}

#[test]
fn a_circle_and_an_upward_edge_are_caught() {
    let m = |s: &str| s.split("::").map(str::to_owned).collect::<Module>();
    let graph = BTreeMap::from([
        (m("json"), BTreeSet::from([m("codex::view")])),
        (
            m("codex::view"),
            BTreeSet::from([m("json"), m("claude::view")]),
        ),
        (m("claude::view"), BTreeSet::new()),
    ]);
    assert_eq!(cycles(&graph), vec![vec!["codex::view", "json"]]);
    assert_eq!(
        forbidden(&graph),
        vec![
            "codex::view → claude::view: one dialect imports another",
            "json → codex::view: points up a layer",
        ]
    );
}
