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

mod over_mcp {
    //! The acceptance questions, asked through the MCP server.
    use super::darwin_index;
    use crate::common::mcp::{start, state, warning_codes};
    use serde_json::json;

    #[test]
    fn verdicts_on_the_darwin_corpus() {
        let mcp = start(darwin_index());
        let supported = mcp.envelope("search_passages", json!({"query": "natural selection"}));
        assert_eq!(state(&supported), "SUPPORTED", "{}", supported["evidence_state"]);
        let revenue =
            mcp.envelope("search_passages", json!({"query": "What was the company's quarterly revenue in 2023?"}));
        assert_eq!(state(&revenue), "INSUFFICIENT_EVIDENCE", "{}", revenue["evidence_state"]);
        let contested = mcp.envelope("search_passages", json!({"query": "selection", "top_k": 50}));
        assert_eq!(state(&contested), "CONFLICTING_EVIDENCE", "{}", contested["evidence_state"]);
    }

    #[test]
    fn survival_of_the_fittest_is_traced_to_1872_only() {
        let mcp = start(darwin_index());
        let e = mcp.envelope("trace_concept", json!({"concept": "survival of the fittest"}));
        let missing = e["coverage"]["periods_without_evidence"].as_array().unwrap();
        assert!(missing.contains(&json!("1859-1860")), "{missing:?}");
        assert!(!missing.contains(&json!("1867-1872")), "{missing:?}");
        assert!(warning_codes(&e).contains(&"NO_EVIDENCE_FOR_PERIOD".to_owned()));
        assert!(e["evidence"].as_array().unwrap().iter().all(|i| i["work"] == "origin-1872"));
    }

    #[test]
    fn natural_and_artificial_selection_are_compared_side_by_side() {
        let mcp = start(darwin_index());
        let e = mcp.envelope(
            "compare_concepts",
            json!({"concept_a": "natural selection", "concept_b": "artificial selection"}),
        );
        let sides = e["coverage"]["sides"].as_array().unwrap();
        assert_eq!(sides[0]["entity_id"], "concept.natural_selection");
        assert_eq!(sides[1]["entity_id"], "concept.artificial_selection");
        assert!(sides.iter().all(|s| s["evidence_n"].as_u64().unwrap() > 0));
        assert_eq!(e["retrieval"]["runs"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn the_reviewed_german_equivalent_of_natural_selection() {
        let mcp = start(darwin_index());
        let e = mcp.envelope("terminology_lookup", json!({"term": "natural selection", "target_language": "de"}));
        let first = &e["resolution"]["terminology"][0];
        assert_eq!(
            (first["target_term"].as_str(), first["review_status"].as_str()),
            (Some("natürliche Züchtung"), Some("reviewed"))
        );
    }
}
