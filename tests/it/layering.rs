//! The module graph stays one-way: every top-level module of `src/` references
//! only modules of its own layer or below (ARCHITECTURE.md, "Layers"), the
//! graph has no cycle, `error` references no other module, and inside
//! `vector/` no two files reference each other in a circle. Read from the
//! source text, so a new upward `use` fails here before it ties a knot.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first. A module may use modules of its own layer or a lower one.
const LAYERS: &[&[&str]] = &[
    &["error", "lane", "passage", "text", "query_words", "failpoint", "stage"],
    &["pdf", "html", "citation"],
    &["corpus"],
    &["chunk", "concepts"],
    &["store", "lexical", "vector", "rerank", "fusion", "routing", "telemetry"],
    &["index", "search"],
    // The published surface (data), then the contract generated from it; the
    // contract never links the execution side.
    &["surface"],
    &["contract"],
    &["tools"],
    &["mcp"],
    &["eval", "cli"],
];

/// Items the crate root re-exports, and the module they come from.
const ROOT_REEXPORTS: &[(&str, &str)] = &[("Error", "error"), ("Result", "error")];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_owned()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        out.extend(rust_files(&entry.unwrap().path()));
    }
    out.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    out.sort();
    out
}

/// The code of a file without line comments (doc comments name modules freely).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segments after each `prefix` (`crate::`, `super::`), with
/// `prefix{a, b::c}` groups expanded to `a` and `b`.
fn referenced(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.insert(ident(item.trim()));
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn top_level_modules() -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        modules.insert(name, rust_files(&path));
    }
    modules
}

/// Module → the other top-level modules it references.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = top_level_modules();
    modules
        .iter()
        .map(|(name, files)| {
            let mut uses = BTreeSet::new();
            for file in files {
                for target in referenced(&code(file), "crate::") {
                    let target = ROOT_REEXPORTS
                        .iter()
                        .find(|(item, _)| *item == target)
                        .map_or(target, |(_, m)| (*m).to_owned());
                    if modules.contains_key(&target) && target != *name {
                        uses.insert(target);
                    }
                }
            }
            (name.clone(), uses)
        })
        .collect()
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// A cycle in `graph`, if any (depth-first search).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn every_module_has_a_layer() {
    for module in top_level_modules().keys() {
        assert!(layer_of(module).is_some(), "src/{module} is in no layer: add it to LAYERS and ARCHITECTURE.md");
    }
}

#[test]
fn no_module_references_a_higher_layer() {
    let mut upward = Vec::new();
    for (module, uses) in graph() {
        let own = layer_of(&module).unwrap_or(usize::MAX);
        for target in uses {
            if layer_of(&target).is_some_and(|l| l > own) {
                upward.push(format!("{module} (layer {own}) → {target} (layer {})", layer_of(&target).unwrap()));
            }
        }
    }
    assert!(upward.is_empty(), "references to a higher layer:\n{}", upward.join("\n"));
}

#[test]
fn the_module_graph_has_no_cycle() {
    assert_eq!(find_cycle(&graph()), None);
}

#[test]
fn error_references_no_other_module() {
    assert_eq!(graph()["error"], BTreeSet::new());
}

/// The published surface is data: it may name the primitives and the pure
/// routing policy (modes, rerank choices), never an engine — neither a module
/// that runs one nor an engine crate — so the contract links the surface alone.
#[test]
fn the_surface_depends_on_no_engine() {
    let allowed: BTreeSet<String> = LAYERS[0].iter().chain(&["routing"]).map(|m| m.to_string()).collect();
    let uses = &graph()["surface"];
    let engines: Vec<&String> = uses.difference(&allowed).collect();
    assert!(engines.is_empty(), "surface references {engines:?}");
    for file in rust_files(&src().join("surface")) {
        let code = code(&file);
        for engine in ["rusqlite::", "tantivy::", "fastembed::", "ort::", "qdrant_edge::", "qdrant_client::"] {
            assert!(!code.contains(engine), "{} names {engine}", file.display());
        }
    }
}

/// The modules `main`, the tests and the benches use; every other module is
/// private, so the dead-code lint sees what nothing calls (ARCHITECTURE.md,
/// "A small public face"). Widening this list needs a user outside `src/`.
const PUBLIC_MODULES: &[&str] =
    &["cli", "contract", "corpus", "fusion", "index", "lane", "passage", "pdf", "stage", "surface", "tools", "vector"];

#[test]
fn the_crate_root_exports_only_the_public_face() {
    let lib = code(&src().join("lib.rs"));
    let public: Vec<&str> =
        lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';')).collect();
    assert_eq!(public, PUBLIC_MODULES);
    // No module is declared `pub(crate)` at the root: private is the default.
    assert!(!lib.contains("pub(crate) mod"), "{lib}");
    let declared = lib.lines().filter(|l| l.trim_start().starts_with("mod ") || l.contains("pub mod ")).count();
    assert_eq!(declared, top_level_modules().len(), "every module of src/ is declared in lib.rs");
}

#[test]
fn the_files_of_vector_do_not_reference_each_other_in_a_circle() {
    let dir = src().join("vector");
    let files: Vec<String> = rust_files(&dir)
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "mod")
        .collect();
    let graph: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .map(|f| {
            let uses = referenced(&code(&dir.join(format!("{f}.rs"))), "super::")
                .into_iter()
                .filter(|t| files.contains(t) && t != f)
                .collect();
            (f.clone(), uses)
        })
        .collect();
    assert_eq!(find_cycle(&graph), None, "{graph:?}");
    // Files name their siblings, not the parent's re-exports, so this graph is the real one.
    for f in &files {
        let parent_items: BTreeSet<String> = referenced(&code(&dir.join(format!("{f}.rs"))), "super::")
            .into_iter()
            .filter(|t| t.chars().next().is_some_and(char::is_uppercase))
            .collect();
        assert!(parent_items.is_empty(), "vector/{f}.rs uses re-exports of vector/mod.rs: {parent_items:?}");
    }
}

#[test]
fn the_reader_sees_groups_and_re_exports() {
    let found = referenced("use crate::{corpus::Entity, lane::{Lane, LaneHits}};\nlet e = crate::Error::X;", "crate::");
    assert_eq!(found, ["Error", "corpus", "lane"].iter().map(|s| s.to_string()).collect());
    let mut knot = BTreeMap::new();
    knot.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    knot.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert!(find_cycle(&knot).is_some());
}
