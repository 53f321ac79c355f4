//! The tool layer in process, at the dispatch boundary: one small index
//! opened once, calls prepared and run as the server runs them, and the
//! evidence → signals mapping checked against the evidence each call returned
//! (no transport in between, so a failure points at the tool layer).

use crate::common::local::shared;
use evident::surface::RULES;
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn call(tool: &str, args: Value) -> Value {
    shared().envelope(tool, args)
}

fn distinct(evidence: &[Value], key: &str) -> usize {
    evidence.iter().filter_map(|i| i[key].as_str()).collect::<BTreeSet<_>>().len()
}

/// The signals a verdict was decided from are the counts of the evidence it came with.
fn assert_signals_match_evidence(e: &Value) {
    let evidence = e["evidence"].as_array().unwrap();
    let signals = &e["evidence_state"]["signals"];
    assert_eq!(signals["evidence_n"], evidence.len(), "{signals}");
    assert_eq!(signals["document_n"], distinct(evidence, "document"));
    assert_eq!(signals["work_n"], distinct(evidence, "work"));
    // Lanes of one kind count once: the feedback lane matches words, as the lexical lane does.
    let kinds = |i: &Value| {
        let lanes = i["component_ranks"].as_object().unwrap().keys();
        lanes.map(|l| if l == "feedback" { "lexical" } else { l.as_str() }).collect::<BTreeSet<_>>().len()
    };
    let multi = evidence.iter().filter(|i| kinds(i) >= 2).count();
    assert_eq!(signals["multi_lane_n"], multi);
    let complete = evidence.iter().filter(|i| i["provenance"]["trace_status"] == "COMPLETE").count();
    assert_eq!(signals["trace_complete_n"], complete);
    assert_eq!(signals["trace_incomplete_n"], evidence.len() - complete);
    let terms = e["coverage"]["term_coverage"].as_array().unwrap();
    assert_eq!(signals["terms_n"], terms.len());
    let covered = terms.iter().filter(|t| t["found_in"].as_u64().unwrap() > 0).count();
    assert_eq!(signals["terms_covered_n"], covered);
    // A term is found in at most every item, and no item holds more terms than the query has.
    for term in terms {
        assert!(term["found_in"].as_u64().unwrap() as usize <= evidence.len(), "{term}");
    }
    let best = e["coverage"]["max_terms_in_one_item"].as_u64().unwrap();
    assert_eq!(signals["best_item_terms_n"], best);
    assert!(best as usize <= terms.len());
    let uncovered = terms.len() - covered;
    assert_eq!(signals["terms_uncovered_n"], uncovered);
    assert_eq!(signals["collision_n"], e["resolution"]["collisions"].as_array().unwrap().len());
    // The fired rule is a rule of the table, for this operation.
    let rule = e["evidence_state"]["rule"].as_str().unwrap();
    assert!(RULES.iter().any(|r| r.id == rule), "{rule}");
}

#[test]
fn search_signals_are_the_counts_of_its_evidence() {
    let e = call("search_passages", json!({"query": "natural selection", "top_k": 20}));
    assert!(e["evidence"].as_array().unwrap().len() >= 5);
    assert_signals_match_evidence(&e);
    assert_eq!(e["evidence_state"]["state"], "SUPPORTED");
}

#[test]
fn concept_trace_and_compare_signals_match_their_evidence() {
    for (tool, args) in [
        ("find_concept_evidence", json!({"concept": "concept.natural_selection"})),
        ("trace_concept", json!({"concept": "survival of the fittest"})),
        ("compare_concepts", json!({"concept_a": "natural selection", "concept_b": "methodical selection"})),
        ("search_passages", json!({"query": "What was the company's quarterly revenue in 2023?"})),
    ] {
        let e = call(tool, args);
        assert_signals_match_evidence(&e);
    }
}

#[test]
fn explain_shows_the_shares_the_fusion_computed() {
    let e = call("search_passages", json!({"query": "natural selection", "explain": true, "top_k": 5}));
    for item in e["evidence"].as_array().unwrap() {
        let shares = item["explanation"].as_array().unwrap();
        assert_eq!(shares.len(), item["component_ranks"].as_object().unwrap().len());
        let total: f64 = shares.iter().map(|c| c["contribution"].as_f64().unwrap()).sum();
        assert!((total - item["score"].as_f64().unwrap()).abs() < 1e-9, "{item}");
    }
}

#[test]
fn the_same_call_gives_the_same_bytes() {
    let args = json!({"query": "struggle for existence", "top_k": 10});
    let mut first = call("search_passages", args.clone());
    let mut second = call("search_passages", args);
    // took_ms is a measurement, not a result.
    first["retrieval"]["took_ms"] = json!(0);
    second["retrieval"]["took_ms"] = json!(0);
    assert_eq!(first.to_string(), second.to_string());
}

#[test]
fn lookups_and_unknown_names_at_the_boundary() {
    let e = call("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"}));
    assert_eq!(e["evidence"][0]["passage_id"], "p.ed-1859.ch1.0002");
    assert_signals_match_evidence(&e);
    assert_eq!(shared().error_code("no_such_tool", json!({})), "unknown_tool");
    assert_eq!(shared().error_code("get_passage", json!({"passage_id": "p.none.0001"})), "passage_not_found");
}
