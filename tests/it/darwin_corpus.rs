//! The shipped sample corpus (data/darwin) answers the questions it was built for.

use crate::common::*;
use std::path::Path;
use std::sync::OnceLock;

/// The sample corpus built once per run, without vectors: these questions are
/// about the corpus, and its multilingual model embeds under 10 passages/s on a
/// small machine (the dense lane has tests of its own in `vector_lane`).
fn darwin_index() -> &'static Path {
    static INDEX: OnceLock<tempfile::TempDir> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
            let corpus = tmp.path().join("corpus");
            crate::common::mcp::copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/darwin"), &corpus);
            let config = std::fs::read_to_string(corpus.join("corpus.toml")).unwrap();
            let config = config.replace("model = \"multilingual-e5-small\"", "enabled = false");
            assert!(config.contains("enabled = false"), "corpus.toml names its model as expected");
            std::fs::write(corpus.join("corpus.toml"), config).unwrap();
            let out = build(&corpus, &tmp.path().join("index"));
            assert_eq!(out.code, 0, "{}", out.stderr);
            tmp
        })
        .path()
        .join("index")
        .leak()
}

/// The Darwin index opened in process once.
fn darwin() -> &'static crate::common::local::Local {
    static OPEN: OnceLock<crate::common::local::Local> = OnceLock::new();
    OPEN.get_or_init(|| crate::common::local::Local::open(darwin_index()))
}

#[test]
fn survival_of_the_fittest_is_found_only_in_1872() {
    let hits = search_hits(darwin_index(), "survival of the fittest", &[]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|h| h["work"] == "origin-1872"), "{hits:?}");
    let phrase = search_hits(darwin_index(), "\"survival of the fittest\"", &["-k", "50"]);
    assert!(crate::common::items(&phrase).iter().all(|h| h["year"] == 1872));
}

#[test]
fn german_query_returns_german_passages() {
    let hits = search_hits(darwin_index(), "natürliche Züchtung", &["--language", "de"]);
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["language"] == "de" && h["provenance"]["witness"] == "1863-de"));
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

mod questions {
    //! The acceptance questions, asked at the dispatch boundary (and,
    //! for the byte sizes a client reads, over MCP).
    use super::{darwin, darwin_index};
    use crate::common::mcp::{start, state, warning_codes};
    use serde_json::json;

    #[test]
    fn verdicts_on_the_darwin_corpus() {
        let mcp = darwin();
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
        let mcp = darwin();
        let e = mcp.envelope("trace_concept", json!({"concept": "survival of the fittest"}));
        let missing = e["coverage"]["periods_without_evidence"].as_array().unwrap();
        assert!(missing.contains(&json!("1859-1860")), "{missing:?}");
        assert!(!missing.contains(&json!("1867-1872")), "{missing:?}");
        assert!(warning_codes(&e).contains(&"NO_EVIDENCE_FOR_PERIOD".to_owned()));
        assert!(crate::common::items(&e["evidence"]).iter().all(|i| i["work"] == "origin-1872"));
    }

    #[test]
    fn natural_and_artificial_selection_are_compared_side_by_side() {
        let mcp = darwin();
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

    /// Default calls fit 24,000 bytes and maximal ones 50,000 (what agent
    /// clients read whole), with the limits the contract publishes.
    #[test]
    fn responses_fit_an_agents_context() {
        let mcp = start(darwin_index());
        let passage = "p.origin-1859.ch04.0012";
        let concept = "natural selection";
        let calls = [
            (
                "search_passages",
                json!({"query": concept}),
                json!({"query": concept, "top_k": 50, "include_context": true, "explain": true}),
            ),
            ("get_passage", json!({"passage_id": passage}), json!({"passage_id": passage})),
            ("get_context", json!({"passage_id": passage}), json!({"passage_id": passage, "before": 20, "after": 20})),
            ("resolve_entity", json!({"term": "selection"}), json!({"term": "selection", "context": concept})),
            ("get_concept", json!({"entity_id": concept}), json!({"entity_id": concept})),
            ("find_concept_evidence", json!({"concept": concept}), json!({"concept": concept, "top_k": 50})),
            ("trace_concept", json!({"concept": concept}), json!({"concept": concept, "per_period": 20})),
            (
                "compare_concepts",
                json!({"concept_a": concept, "concept_b": "artificial selection"}),
                json!({"concept_a": concept, "concept_b": "artificial selection", "top_k": 30}),
            ),
            ("trace_source", json!({"passage_id": passage}), json!({"passage_id": passage})),
            ("terminology_lookup", json!({"term": concept}), json!({"term": concept})),
        ];
        let contract: serde_json::Value =
            serde_json::from_str(include_str!("../../contract/evident_mcp_v1.json")).unwrap();
        let default_limit = contract["limits"]["default_response_budget_bytes"].as_u64().unwrap() as usize;
        let max_limit = contract["limits"]["max_response_budget_bytes"].as_u64().unwrap() as usize;
        assert!(default_limit <= 24_000 && max_limit <= 50_000);
        for (tool, default_args, max_args) in calls {
            for (args, limit) in [(default_args, default_limit), (max_args, max_limit)] {
                let result = mcp.raw(tool, args.clone());
                assert_ne!(result.is_error, Some(true), "{tool} {args}");
                let text = result.content[0].as_text().unwrap().text.len();
                eprintln!("{tool} {args}: {text} bytes");
                assert!(text <= limit, "{tool} {args}: {text} bytes > {limit}");
            }
        }
    }

    #[test]
    fn a_name_that_resolves_to_nothing_offers_close_names() {
        let mcp = darwin();
        let e = mcp.envelope("resolve_entity", json!({"term": "Mivart"}));
        assert_eq!(e["resolution"]["status"], "UNRESOLVED");
        let ids: Vec<&str> = e["resolution"]["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["entity_id"].as_str().unwrap())
            .collect();
        assert!(ids.contains(&"concept.miscellaneous_objections_mivart"), "{ids:?}");
    }

    #[test]
    fn the_reviewed_german_equivalent_of_natural_selection() {
        let mcp = darwin();
        let e = mcp.envelope("terminology_lookup", json!({"term": "natural selection", "target_language": "de"}));
        let first = &e["resolution"]["terminology"][0];
        assert_eq!(
            (first["target_term"].as_str(), first["review_status"].as_str()),
            (Some("natürliche Züchtung"), Some("reviewed"))
        );
    }
}
