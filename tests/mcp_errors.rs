//! Every error of the closed catalog, reached through real MCP calls: each
//! bad input answers `isError: true` with its own `error_code`, never a
//! panic or internal text, and the server keeps serving afterwards.
// Test helpers outside #[test] functions may panic too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::mcp::{index_copy, shared_index, start, start_with};
use evident::tools::ErrorCode;
use serde_json::json;

/// Calls that must fail on the shared index, with the code each must get.
fn plain_cases() -> Vec<(&'static str, &'static str, serde_json::Value)> {
    vec![
        ("unknown_tool", "delete_everything", json!({})),
        ("unknown_parameter", "search_passages", json!({"query": "x", "limit": 5})),
        ("missing_parameter", "search_passages", json!({"top_k": 5})),
        ("missing_parameter", "get_context", json!({})),
        ("invalid_argument", "search_passages", json!({"query": 42})),
        ("invalid_argument", "search_passages", json!({"query": "x", "top_k": "5"})),
        ("invalid_argument", "search_passages", json!({"query": "x", "retrieval_mode": "psychic"})),
        ("invalid_argument", "search_passages", json!({"query": "x", "entities": {"id": "concept.struggle"}})),
        ("out_of_range", "search_passages", json!({"query": "x", "top_k": 51})),
        ("out_of_range", "get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "before": 21})),
        ("out_of_range", "trace_concept", json!({"concept": "concept.struggle", "per_period": 0})),
        ("empty_argument", "search_passages", json!({"query": "   "})),
        ("empty_argument", "resolve_entity", json!({"term": ""})),
        ("argument_too_long", "search_passages", json!({"query": "a".repeat(2001)})),
        ("passage_not_found", "get_passage", json!({"passage_id": "p.nowhere.0001"})),
        ("passage_not_found", "trace_source", json!({"passage_id": "p.ed-1859.ch1.9999"})),
        ("entity_not_found", "get_concept", json!({"entity_id": "concept.phlogiston"})),
        ("entity_not_found", "find_concept_evidence", json!({"concept": "phlogiston"})),
        ("entity_not_found", "search_passages", json!({"query": "x", "entities": ["concept.phlogiston"]})),
        ("period_not_found", "search_passages", json!({"query": "x", "period": "1990s"})),
        ("work_not_found", "search_passages", json!({"query": "x", "work": "ed-1860"})),
        ("work_not_found", "find_concept_evidence", json!({"concept": "concept.struggle", "work": "ed-1860"})),
        ("language_not_found", "search_passages", json!({"query": "x", "language": "fr"})),
        ("language_not_found", "trace_concept", json!({"concept": "concept.struggle", "language": "xx"})),
        ("invalid_cursor", "search_passages", json!({"query": "x", "cursor": "c1.10.0000000000000000"})),
        ("invalid_cursor", "search_passages", json!({"query": "x", "cursor": "garbage"})),
    ]
}

#[test]
fn each_bad_input_gets_its_code_and_the_server_keeps_serving() {
    let mcp = start(shared_index());
    for (code, tool, args) in plain_cases() {
        assert_eq!(mcp.error_code(tool, args.clone()), code, "{tool} {args}");
    }
    mcp.ping();
    mcp.envelope("search_passages", json!({"query": "natural selection"}));
}

#[test]
fn unknown_parameters_are_named() {
    let mcp = start(shared_index());
    let result = mcp.raw("search_passages", json!({"query": "x", "limit": 5, "sort": "asc"}));
    let message = result.structured_content.unwrap()["error"].as_str().unwrap().to_owned();
    assert!(message.contains("`limit`") && message.contains("`sort`"), "{message}");
}

#[test]
fn wrong_types_name_the_parameter_and_the_expected_type() {
    let mcp = start(shared_index());
    let result = mcp.raw("get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "after": true}));
    let message = result.structured_content.unwrap()["error"].as_str().unwrap().to_owned();
    assert!(message.contains("`after`") && message.contains("integer"), "{message}");
}

#[test]
fn a_forced_vector_search_without_the_vector_lane_is_refused() {
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_MODELS_DIR", "/nonexistent-models")]);
    let code = mcp.error_code("search_passages", json!({"query": "natural selection", "retrieval_mode": "vector"}));
    assert_eq!(code, "vector_lane_unavailable");
}

#[test]
fn an_index_that_disappears_while_serving_is_unavailable() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let mcp = start(&index);
    mcp.envelope("search_passages", json!({"query": "natural selection"}));
    std::fs::write(index.join("CURRENT"), "gen-999999\n").unwrap();
    assert_eq!(mcp.error_code("search_passages", json!({"query": "natural selection"})), "index_unavailable");
    mcp.ping();
}

#[test]
fn a_call_over_its_time_limit_times_out_and_the_server_stays_healthy() {
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_TIMEOUT_SEARCH_PASSAGES", "0.000000001")]);
    assert_eq!(mcp.error_code("search_passages", json!({"query": "natural selection"})), "timeout");
    mcp.ping();
    mcp.envelope("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"}));
}

#[test]
fn a_panic_inside_a_tool_is_an_internal_error() {
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_FAILPOINT", "panic:get_passage")]);
    assert_eq!(mcp.error_code("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"})), "internal_error");
    mcp.ping();
    mcp.envelope("search_passages", json!({"query": "natural selection"}));
}

/// Every catalog member is reached by a test above. (Handlers can only emit
/// `ErrorCode` values, so every code they emit is in the catalog by type.)
#[test]
fn every_catalogued_code_is_reached_by_a_test() {
    let mut reached: Vec<&str> = plain_cases().iter().map(|(code, ..)| *code).collect();
    // The cases with their own server setup, above.
    reached.extend(["vector_lane_unavailable", "index_unavailable", "timeout", "internal_error"]);
    for code in ErrorCode::ALL {
        assert!(reached.contains(&code.as_str()), "no test reaches `{}`", code.as_str());
    }
    for code in reached {
        assert!(ErrorCode::ALL.iter().any(|c| c.as_str() == code), "`{code}` is not in the catalog");
    }
}
