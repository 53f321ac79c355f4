//! The tool calls the MCP tests share: one bad input per case with the error
//! code it must get (and the server setup it needs), and one good call per
//! registered name. tests/mcp_errors.rs runs them with rmcp's client,
//! tests/sdk_clients.rs with the official TypeScript SDK.
#![allow(dead_code)]

use serde_json::{Value, json};

/// What a case needs of the server beyond the shared index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// The shared index as built.
    Plain,
    /// These environment variables set for the server.
    Env(&'static [(&'static str, &'static str)]),
    /// A copy of the index whose `CURRENT` moves to a missing generation after the server started.
    CurrentMoved,
}

pub struct ErrorCase {
    pub code: &'static str,
    pub tool: &'static str,
    pub args: Value,
    pub setup: Setup,
}

fn plain(code: &'static str, tool: &'static str, args: Value) -> ErrorCase {
    ErrorCase { code, tool, args, setup: Setup::Plain }
}

/// Every bad input and the code it must get.
pub fn error_cases() -> Vec<ErrorCase> {
    vec![
        plain("unknown_tool", "delete_everything", json!({})),
        plain("unknown_parameter", "search_passages", json!({"query": "x", "limit": 5})),
        plain("missing_parameter", "search_passages", json!({"top_k": 5})),
        plain("missing_parameter", "get_context", json!({})),
        plain("invalid_argument", "search_passages", json!({"query": 42})),
        plain("invalid_argument", "search_passages", json!({"query": "x", "top_k": "5"})),
        plain("invalid_argument", "search_passages", json!({"query": "x", "retrieval_mode": "psychic"})),
        plain("invalid_argument", "search_passages", json!({"query": "x", "rerank": "colbert"})),
        plain("invalid_argument", "search_passages", json!({"query": "x", "rerank": true})),
        plain("invalid_argument", "search_passages", json!({"query": "x", "detail": "everything"})),
        plain("invalid_argument", "search_passages", json!({"query": "x", "entities": {"id": "concept.struggle"}})),
        plain("out_of_range", "search_passages", json!({"query": "x", "top_k": 51})),
        plain("out_of_range", "get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "before": 21})),
        plain("out_of_range", "trace_concept", json!({"concept": "concept.struggle", "per_period": 0})),
        plain("empty_argument", "search_passages", json!({"query": "   "})),
        plain("empty_argument", "resolve_entity", json!({"term": ""})),
        plain("argument_too_long", "search_passages", json!({"query": "a".repeat(8001)})),
        plain("argument_too_long", "search_passages", json!({"query": "a", "work": "w".repeat(2001)})),
        plain("query_too_complex", "search_passages", json!({"query": "\"natural selection\" ".repeat(9)})),
        plain("query_too_complex", "semantic_search", json!({"query": "word ".repeat(513)})),
        plain("passage_not_found", "get_passage", json!({"passage_id": "p.nowhere.0001"})),
        plain("passage_not_found", "trace_source", json!({"passage_id": "p.ed-1859.ch1.9999"})),
        plain("entity_not_found", "get_concept", json!({"entity_id": "concept.phlogiston"})),
        plain("entity_not_found", "find_concept_evidence", json!({"concept": "phlogiston"})),
        plain("entity_not_found", "search_passages", json!({"query": "x", "entities": ["concept.phlogiston"]})),
        plain("period_not_found", "search_passages", json!({"query": "x", "period": "1990s"})),
        plain("work_not_found", "search_passages", json!({"query": "x", "work": "ed-1860"})),
        plain("work_not_found", "find_concept_evidence", json!({"concept": "concept.struggle", "work": "ed-1860"})),
        plain("language_not_found", "search_passages", json!({"query": "x", "language": "fr"})),
        plain("language_not_found", "trace_concept", json!({"concept": "concept.struggle", "language": "xx"})),
        plain("invalid_cursor", "search_passages", json!({"query": "x", "cursor": "c1.10.0000000000000000"})),
        plain("invalid_cursor", "search_passages", json!({"query": "x", "cursor": "garbage"})),
        ErrorCase {
            code: "vector_lane_unavailable",
            tool: "search_passages",
            args: json!({"query": "natural selection", "retrieval_mode": "vector"}),
            setup: Setup::Env(&[("EVIDENT_MODELS_DIR", "/nonexistent-models")]),
        },
        ErrorCase {
            code: "timeout",
            tool: "search_passages",
            args: json!({"query": "natural selection"}),
            setup: Setup::Env(&[("EVIDENT_TIMEOUT_SEARCH_PASSAGES", "0.000000001")]),
        },
        ErrorCase {
            code: "internal_error",
            tool: "get_passage",
            args: json!({"passage_id": "p.ed-1859.ch1.0002"}),
            setup: Setup::Env(&[("EVIDENT_FAILPOINT", "panic:get_passage")]),
        },
        ErrorCase {
            code: "index_unavailable",
            tool: "search_passages",
            args: json!({"query": "natural selection"}),
            setup: Setup::CurrentMoved,
        },
    ]
}

/// One successful call per registered name (visible, hidden and deprecated), on the MCP test corpus.
pub fn good_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("search_passages", json!({"query": "natural selection"})),
        ("search_passages", json!({"query": "natural selection", "detail": "snippet", "top_k": 50, "explain": true})),
        ("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"})),
        ("get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "before": 20, "after": 20})),
        ("resolve_entity", json!({"term": "selection"})),
        ("resolve_entity", json!({"term": "struggle"})),
        ("get_concept", json!({"entity_id": "natural selection"})),
        ("find_concept_evidence", json!({"concept": "concept.struggle"})),
        ("find_concept_evidence", json!({"concept": "selection"})),
        ("trace_concept", json!({"concept": "natural selection"})),
        ("compare_concepts", json!({"concept_a": "concept.natural_selection", "concept_b": "concept.struggle"})),
        ("trace_source", json!({"passage_id": "p.ed-1859.ch1.0002"})),
        ("terminology_lookup", json!({"term": "natural selection"})),
        ("lane_search", json!({"query": "natural selection", "lane": "lexical"})),
        ("search", json!({"query": "natural selection"})),
        ("keyword_search", json!({"terms": "natural selection"})),
        ("semantic_search", json!({"query": "natural selection"})),
        ("get_document_passage", json!({"passage_id": "p.ed-1859.ch1.0002"})),
    ]
}
