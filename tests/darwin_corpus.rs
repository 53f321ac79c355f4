//! The shipped sample corpus (data/darwin) answers the questions it was built for.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use common::*;
use std::path::Path;
use std::sync::OnceLock;

fn darwin_index() -> &'static Path {
    static INDEX: OnceLock<tempfile::TempDir> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let tmp = tempfile::tempdir().unwrap();
            let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/darwin");
            let out = build(&corpus, tmp.path());
            assert_eq!(out.code, 0, "{}", out.stderr);
            tmp
        })
        .path()
}

#[test]
fn survival_of_the_fittest_is_found_only_in_1872() {
    let hits = search_hits(darwin_index(), "survival of the fittest", &[]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|h| h["work"] == "origin-1872"), "{hits:?}");
    let phrase = search_hits(darwin_index(), "\"survival of the fittest\"", &["-k", "100"]);
    assert!(phrase.as_array().unwrap().iter().all(|h| h["year"] == 1872));
}

#[test]
fn german_query_returns_german_passages() {
    let hits = search_hits(darwin_index(), "natürliche Züchtung", &["--language", "de"]);
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["language"] == "de" && h["witness"] == "1863-de"));
}

#[test]
fn unbalanced_parenthesis_does_not_error() {
    let out = run(&["search", "natural (selection", "--index", path(darwin_index())]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("p.origin-"), "{}", out.stdout);
}

#[test]
fn sample_corpus_has_no_project_gutenberg_text() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/darwin/documents");
    for entry in std::fs::read_dir(docs).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.to_lowercase().contains("gutenberg"));
    }
}
