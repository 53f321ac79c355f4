//! What each tool answers, at the dispatch boundary (in process, on the
//! shared test index): verdicts, resolution, tracing, comparison,
//! terminology, concept cards, passages, filters, options and snippets. How
//! the answers cross stdio is `mcp_tools`' subject.

use crate::common::local::shared;
use crate::common::mcp::{state, warning_codes};
use serde_json::{Value, json};

#[test]
fn defaults_are_filled_into_the_request() {
    let mcp = shared();
    let e = mcp.envelope("search_passages", json!({"query": "struggle"}));
    let args = &e["request"]["arguments"];
    assert_eq!(args["top_k"], 10);
    assert_eq!(args["retrieval_mode"], "auto");
    assert_eq!(args["include_context"], false);
    assert_eq!(args["language"], "any");
}

#[test]
fn natural_selection_is_supported() {
    let mcp = shared();
    let e = mcp.envelope("search_passages", json!({"query": "natural selection"}));
    assert_eq!(state(&e), "SUPPORTED", "{}", e["evidence_state"]);
    assert_eq!(e["resolution"]["entities"][0]["id"], "concept.natural_selection");
    assert!(e["coverage"]["multi_lane_n"].as_u64().unwrap() >= 1);
}

#[test]
fn a_question_the_corpus_cannot_answer_is_insufficient() {
    let mcp = shared();
    let e = mcp.envelope("search_passages", json!({"query": "What was the company's quarterly revenue in 2023?"}));
    assert_eq!(state(&e), "INSUFFICIENT_EVIDENCE", "{}", e["evidence_state"]);
}

#[test]
fn evidence_for_two_readings_of_a_shared_name_is_conflicting() {
    let mcp = shared();
    let e = mcp.envelope("search_passages", json!({"query": "selection", "top_k": 30}));
    assert_eq!(state(&e), "CONFLICTING_EVIDENCE", "{}", e["evidence_state"]);
    assert_eq!(e["evidence_state"]["rule"], "conflicting.contested_reading");
    let candidates: Vec<&str> = e["resolution"]["collisions"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(candidates, ["concept.methodical_selection", "concept.natural_selection"]);
    assert!(warning_codes(&e).contains(&"ENTITY_COLLISION".to_owned()));
}

#[test]
fn resolve_entity_never_resolves_silently() {
    let mcp = shared();
    let collision = mcp.envelope("resolve_entity", json!({"term": "selection"}));
    assert_eq!(collision["resolution"]["status"], "ENTITY_COLLISION");
    assert_eq!(collision["resolution"]["collisions"][0]["candidates"].as_array().unwrap().len(), 2);
    assert!(warning_codes(&collision).contains(&"ENTITY_COLLISION".to_owned()));

    let ambiguous = mcp.envelope("resolve_entity", json!({"term": "variety"}));
    assert_eq!(ambiguous["resolution"]["status"], "AMBIGUOUS");
    assert_eq!(ambiguous["resolution"]["ambiguous"][0]["senses"].as_array().unwrap().len(), 2);
    assert!(warning_codes(&ambiguous).contains(&"AMBIGUOUS_ENTITY".to_owned()));

    let resolved = mcp.envelope("resolve_entity", json!({"term": "Natural Selection"}));
    assert_eq!(resolved["resolution"]["status"], "RESOLVED");
    assert_eq!(state(&resolved), "SUPPORTED");

    let unresolved = mcp.envelope("resolve_entity", json!({"term": "phlogiston"}));
    assert_eq!(unresolved["resolution"]["status"], "UNRESOLVED");
    assert_eq!(state(&unresolved), "INSUFFICIENT_EVIDENCE");

    let with_context = mcp.envelope(
        "resolve_entity",
        json!({"term": "selection", "context": "breeders practise methodical selection on their herds"}),
    );
    let candidates = with_context["resolution"]["collisions"][0]["candidates"].as_array().unwrap();
    let mentions: Vec<(String, u64)> = candidates
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_owned(), c["context_mentions"].as_u64().unwrap()))
        .collect();
    assert_eq!(mentions, [("concept.methodical_selection".to_owned(), 1), ("concept.natural_selection".to_owned(), 0)]);
    assert_eq!(with_context["resolution"]["status"], "ENTITY_COLLISION", "context never resolves silently");
}

#[test]
fn trace_concept_reports_periods_without_evidence() {
    let mcp = shared();
    let e = mcp.envelope("trace_concept", json!({"concept": "survival of the fittest"}));
    assert_eq!(e["coverage"]["periods_without_evidence"], json!(["early"]));
    let groups = e["coverage"]["groups"].as_array().unwrap();
    assert_eq!(groups.iter().map(|g| g["period"].as_str().unwrap()).collect::<Vec<_>>(), ["early", "late"]);
    assert_eq!(groups[0]["evidence_n"], 0);
    assert!(groups[1]["evidence_n"].as_u64().unwrap() >= 1);
    assert_eq!(groups[1]["works"][0]["work"], "ed-1872");
    assert!(warning_codes(&e).contains(&"NO_EVIDENCE_FOR_PERIOD".to_owned()));
    assert!(crate::common::items(&e["evidence"]).iter().all(|i| i["work"] == "ed-1872"));
    assert_eq!(state(&e), "PARTIALLY_SUPPORTED");
    assert_eq!(e["evidence_state"]["rule"], "partial.period_gaps");
}

#[test]
fn compare_concepts_runs_one_lane_set_per_concept() {
    let mcp = shared();
    let e = mcp
        .envelope("compare_concepts", json!({"concept_a": "natural selection", "concept_b": "methodical selection"}));
    let runs = e["retrieval"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0]["label"].as_str(), runs[1]["label"].as_str()), (Some("a"), Some("b")));
    // Each side searched its own concept, never the two as one query.
    assert_eq!(runs[0]["query"], "natural selection");
    assert_eq!(runs[1]["query"], "methodical selection");
    let sides = e["coverage"]["sides"].as_array().unwrap();
    assert_eq!(sides[0]["entity_id"], "concept.natural_selection");
    assert_eq!(sides[1]["entity_id"], "concept.methodical_selection");
    for item in e["evidence"].as_array().unwrap() {
        let side = item["side"].as_str().unwrap();
        let entity = if side == "a" { "concept.natural_selection" } else { "concept.methodical_selection" };
        assert!(item["entities"].as_array().unwrap().iter().any(|x| x == entity), "{item}");
    }
    assert!(warning_codes(&e).contains(&"RELATED_CONCEPTS".to_owned()));
}

#[test]
fn terminology_lookup_returns_the_reviewed_equivalent_first() {
    let mcp = shared();
    let e = mcp.envelope("terminology_lookup", json!({"term": "natural selection"}));
    let mappings = e["resolution"]["terminology"].as_array().unwrap();
    assert_eq!(mappings[0]["target_term"], "natürliche Züchtung");
    assert_eq!(mappings[0]["review_status"], "reviewed");
    assert!(warning_codes(&e).contains(&"DRAFT_TERMINOLOGY".to_owned()));
    assert_eq!(state(&e), "SUPPORTED");
    let reverse = mcp.envelope("terminology_lookup", json!({"term": "natürliche Züchtung", "target_language": "en"}));
    assert_eq!(reverse["resolution"]["terminology"][0]["target_term"], "natural selection");
    let contrastive = mcp.envelope("terminology_lookup", json!({"term": "variety"}));
    assert!(warning_codes(&contrastive).contains(&"CONTRASTIVE_TERMINOLOGY".to_owned()));
    let none = mcp.envelope("terminology_lookup", json!({"term": "phlogiston"}));
    assert_eq!(state(&none), "INSUFFICIENT_EVIDENCE");
}

#[test]
fn get_concept_never_invents_a_definition() {
    let mcp = shared();
    let e = mcp.envelope("get_concept", json!({"entity_id": "concept.natural_selection"}));
    let card = &e["resolution"]["concept"];
    assert_eq!(card["definition"], Value::Null);
    assert_eq!(card["definition_status"], "none");
    assert!(warning_codes(&e).contains(&"NO_REVIEWED_DEFINITION".to_owned()));
    assert!(card["linked_passages"].as_u64().unwrap() > 0);
    assert_eq!(card["relations"][0]["relation"], "contrasts_with");
    let defined = mcp.envelope("get_concept", json!({"entity_id": "concept.telegraph"}));
    assert_eq!(defined["resolution"]["concept"]["definition_status"], "reviewed");
    assert!(!warning_codes(&defined).contains(&"NO_REVIEWED_DEFINITION".to_owned()));
}

#[test]
fn passages_context_and_source_trace() {
    let mcp = shared();
    let one = mcp.envelope("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"}));
    assert_eq!(
        one["evidence"][0]["neighbours"],
        json!({"previous": "p.ed-1859.ch1.0001", "next": "p.ed-1859.ch1.0003"})
    );
    let context = mcp.envelope("get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "before": 1, "after": 2}));
    let ids: Vec<&str> =
        context["evidence"].as_array().unwrap().iter().map(|i| i["passage_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["p.ed-1859.ch1.0001", "p.ed-1859.ch1.0002", "p.ed-1859.ch1.0003", "p.ed-1859.ch1.0004"]);
    let trace = mcp.envelope("trace_source", json!({"passage_id": "p.ed-1859.ch1.0002"}));
    let chain = &trace["provenance"]["chain"];
    assert_eq!(chain["trace_status"], "COMPLETE");
    let links: Vec<&str> = chain["links"].as_array().unwrap().iter().map(|l| l["link"].as_str().unwrap()).collect();
    assert_eq!(links, ["passage", "document", "witness", "source_file", "sha256"]);
    assert_eq!(chain["links"][3]["value"], "docs/ed-1859-ch1.md");
    assert_eq!(chain["links"][4]["value"].as_str().unwrap().len(), 64);
    assert_eq!(state(&trace), "SUPPORTED");
}

#[test]
fn filters_by_period_language_and_entities() {
    let mcp = shared();
    let late = mcp.envelope("search_passages", json!({"query": "natural selection", "period": "late", "top_k": 20}));
    assert!(crate::common::items(&late["evidence"]).iter().all(|i| i["period"] == "late"), "{}", late["evidence"]);
    let german = mcp.envelope("search_passages", json!({"query": "Züchtung", "language": "de"}));
    assert!(crate::common::items(&german["evidence"]).iter().all(|i| i["language"] == "de"));
    let linked = mcp.envelope("search_passages", json!({"query": "organic beings", "entities": ["concept.struggle"]}));
    for item in linked["evidence"].as_array().unwrap() {
        assert!(item["entities"].as_array().unwrap().iter().any(|e| e == "concept.struggle"), "{item}");
    }
    // Arrays sent as JSON text are decoded once.
    let encoded =
        mcp.envelope("search_passages", json!({"query": "organic beings", "entities": "[\"concept.struggle\"]"}));
    assert_eq!(encoded["evidence"], linked["evidence"]);
}

#[test]
fn explain_and_context_options() {
    let mcp = shared();
    let e = mcp.envelope(
        "search_passages",
        json!({"query": "natural selection", "explain": true, "include_context": true, "top_k": 3}),
    );
    let item = &e["evidence"][0];
    let shares = item["explanation"].as_array().unwrap();
    let total: f64 = shares.iter().map(|c| c["contribution"].as_f64().unwrap()).sum();
    assert!((total - item["score"].as_f64().unwrap()).abs() < 1e-9, "{item}");
    assert!(item["context"]["after"].is_array());
}

#[test]
fn a_cross_encoder_reorders_the_fused_list_and_each_item_keeps_its_fused_rank() {
    let mcp = shared();
    let query = "how do animals compete to survive";
    let fused = mcp.envelope("search_passages", json!({"query": query, "top_k": 50}));
    assert!(fused["retrieval"].get("rerank").is_none(), "no reranking unless asked for");
    assert!(fused["evidence"][0].get("fused_rank").is_none());
    let e = mcp.envelope("search_passages", json!({"query": query, "top_k": 5, "rerank": "cross_encoder"}));
    let rerank = &e["retrieval"]["rerank"];
    assert_eq!((rerank["method"].as_str(), rerank["status"].as_str()), (Some("cross_encoder"), Some("applied")), "{e}");
    assert_eq!(rerank["model"], "ms-marco-MiniLM-L-12-v2");
    let fused_items = fused["evidence"].as_array().unwrap();
    assert_eq!(rerank["reranked"].as_u64(), Some(fused_items.len().min(50) as u64));
    let items = e["evidence"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    for item in items {
        // Each item sits at its fused rank in the fused list, with its fused score:
        // the reranker's own score is reported nowhere.
        let at = item["fused_rank"].as_u64().unwrap() as usize;
        assert_eq!(fused_items[at - 1]["passage_id"], item["passage_id"], "{item}");
        assert_eq!(fused_items[at - 1]["score"], item["score"]);
        assert!(item["why_retrieved"].as_str().unwrap().contains(&format!("reranked from fused rank {at}")), "{item}");
    }
    assert!(items[0]["text"].as_str().unwrap().to_lowercase().contains("struggle"), "{}", items[0]["text"]);
    // The same request gives the same order.
    let again = mcp.envelope("search_passages", json!({"query": query, "top_k": 5, "rerank": "cross_encoder"}));
    let ids = |e: &Value| e["evidence"].as_array().unwrap().iter().map(|i| i["passage_id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&again), ids(&e));
}

#[test]
fn snippets_keep_ids_provenance_and_the_verdict() {
    let mcp = shared();
    let args = json!({"query": "natural selection", "top_k": 20});
    let full = mcp.envelope("search_passages", args.clone());
    let mut snippet_args = args.clone();
    snippet_args["detail"] = json!("snippet");
    let snippets = mcp.envelope("search_passages", snippet_args);
    let ids = |e: &Value| e["evidence"].as_array().unwrap().iter().map(|i| i["passage_id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&full), ids(&snippets));
    assert_eq!(full["evidence_state"], snippets["evidence_state"], "the verdict sees whole passages");
    assert_eq!(full["coverage"], snippets["coverage"]);
    let mut cut = 0;
    for (whole, short) in full["evidence"].as_array().unwrap().iter().zip(snippets["evidence"].as_array().unwrap()) {
        let text = short["text"].as_str().unwrap();
        assert!(text.chars().count() <= 300, "{text}");
        for key in ["document", "work", "section", "period", "provenance", "why_retrieved"] {
            assert_eq!(whole[key], short[key], "{key}");
        }
        let whole_chars = whole["text"].as_str().unwrap().chars().count();
        if whole_chars > 300 {
            cut += 1;
            assert_eq!(short["full_text_chars"], whole_chars);
            let core = text.trim_matches('…');
            assert!(whole["text"].as_str().unwrap().contains(core), "a snippet is a window of the passage");
        } else {
            assert_eq!(whole["text"], short["text"]);
        }
    }
    assert!(cut > 0, "the test corpus has passages longer than a snippet");
}

#[test]
fn compare_sends_a_passage_both_sides_found_once() {
    let mcp = shared();
    let e = mcp
        .envelope("compare_concepts", json!({"concept_a": "natural selection", "concept_b": "methodical selection"}));
    let evidence = e["evidence"].as_array().unwrap();
    let mut ids: Vec<&str> = evidence.iter().map(|i| i["passage_id"].as_str().unwrap()).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "no passage is sent twice");
    let sides = e["coverage"]["sides"].as_array().unwrap();
    let listed = |side: usize| -> Vec<&str> {
        sides[side]["passage_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect()
    };
    let (a, b) = (listed(0), listed(1));
    assert_eq!(a.len() as u64, sides[0]["evidence_n"].as_u64().unwrap());
    for item in evidence {
        let id = item["passage_id"].as_str().unwrap();
        match item["side"].as_str().unwrap() {
            "both" => assert!(a.contains(&id) && b.contains(&id)),
            "a" => assert!(a.contains(&id) && !b.contains(&id)),
            "b" => assert!(b.contains(&id) && !a.contains(&id)),
            other => panic!("side {other}"),
        }
    }
    // Every id a side lists is in the evidence.
    for id in a.iter().chain(b.iter()) {
        assert!(ids.contains(id), "{id}");
    }
}

#[test]
fn unresolved_terms_offer_close_names() {
    let mcp = shared();
    let part = mcp.envelope("resolve_entity", json!({"term": "struggle"}));
    assert_eq!(part["resolution"]["status"], "UNRESOLVED");
    let suggestions = part["resolution"]["suggestions"].as_array().unwrap();
    assert_eq!(suggestions[0]["entity_id"], "concept.struggle");
    assert_eq!(suggestions[0]["how"], "contains");
    assert!(suggestions.len() <= 5);
    let action = part["warnings"][0]["action"].as_str().unwrap();
    assert!(action.contains("concept.struggle"), "{action}");
    let misspelt = mcp.envelope("resolve_entity", json!({"term": "natural selektion"}));
    let first = &misspelt["resolution"]["suggestions"][0];
    assert_eq!(first["entity_id"], "concept.natural_selection", "{misspelt}");
    let nothing = mcp.envelope("resolve_entity", json!({"term": "phlogiston"}));
    assert!(nothing["resolution"].get("suggestions").is_none(), "no close name, no suggestions");
}

#[test]
fn concept_tools_take_names_as_resolve_entity_does() {
    let mcp = shared();
    let by_name = mcp.envelope("get_concept", json!({"entity_id": "natural selection"}));
    let by_id = mcp.envelope("get_concept", json!({"entity_id": "concept.natural_selection"}));
    assert_eq!(by_name["resolution"]["concept"], by_id["resolution"]["concept"]);
    assert_eq!(by_name["resolution"]["concept"]["id"], "concept.natural_selection");

    let by_id = mcp.envelope("search_passages", json!({"query": "organic beings", "entities": ["concept.struggle"]}));
    let by_alias =
        mcp.envelope("search_passages", json!({"query": "organic beings", "entities": ["struggle for life"]}));
    assert_eq!(by_id["evidence"], by_alias["evidence"]);
    let shared = mcp.envelope("search_passages", json!({"query": "organic beings", "entities": ["selection"]}));
    assert!(warning_codes(&shared).contains(&"ENTITY_COLLISION".to_owned()), "{}", shared["warnings"]);

    // A shared name answers with the collision and its candidates, never with no_evidence.
    for (tool, args) in [
        ("get_concept", json!({"entity_id": "selection"})),
        ("find_concept_evidence", json!({"concept": "selection"})),
        ("trace_concept", json!({"concept": "selection"})),
        ("compare_concepts", json!({"concept_a": "selection", "concept_b": "concept.struggle"})),
    ] {
        let e = mcp.envelope(tool, args);
        assert_eq!(e["resolution"]["collisions"][0]["candidates"].as_array().unwrap().len(), 2, "{tool}");
        let codes = warning_codes(&e);
        assert!(codes.contains(&"ENTITY_COLLISION".to_owned()) && !codes.contains(&"NO_EVIDENCE".to_owned()), "{tool}");
        assert_ne!(e["evidence_state"]["rule"], "insufficient.no_evidence", "{tool}");
        if tool != "get_concept" {
            assert_eq!(e["evidence_state"]["rule"], "insufficient.concept_undecided", "{tool}");
        }
    }
}

#[test]
fn get_context_says_where_the_document_ends() {
    let mcp = shared();
    let e = mcp.envelope("get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "before": 5, "after": 20}));
    let window = &e["coverage"]["context_window"];
    assert_eq!(window["before_requested"], 5);
    assert_eq!(window["before_returned"], 1, "{window}");
    assert_eq!(window["reaches_document_start"], true);
    assert_eq!(window["reaches_document_end"], true);
    let n = e["evidence"].as_array().unwrap().len() as u64;
    assert_eq!(n, 2 + window["after_returned"].as_u64().unwrap());
    assert!(warning_codes(&e).contains(&"DOCUMENT_BOUNDARY".to_owned()));
    // p.ed-1859.ch1.0001 opens the document: a window of one before 0002 reaches it, before 0003 it does not.
    let first = mcp.envelope("get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "before": 1, "after": 0}));
    assert_eq!(first["coverage"]["context_window"]["reaches_document_start"], true);
    let inner = mcp.envelope("get_context", json!({"passage_id": "p.ed-1859.ch1.0003", "before": 1, "after": 0}));
    assert_eq!(inner["coverage"]["context_window"]["reaches_document_start"], false);
    assert_eq!(inner["coverage"]["context_window"]["reaches_document_end"], false);
    assert!(!warning_codes(&inner).contains(&"DOCUMENT_BOUNDARY".to_owned()));
}
