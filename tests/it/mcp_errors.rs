//! Every error of the closed catalog, reached through real MCP calls: each
//! bad input answers `isError: true` with its own `error_code`, never a
//! panic or internal text, and the server keeps serving afterwards.
// Test helpers outside #[test] functions may panic too.

use crate::common::cases::{Setup, error_cases};
use crate::common::mcp::{Mcp, error_body, index_copy, shared_index, start, start_with};
use evident::surface::ErrorCode;
use serde_json::json;

/// Runs every case of one setup on one server and checks the server still answers.
fn run_cases(mcp: &Mcp, setup: Setup) {
    for case in error_cases().into_iter().filter(|c| c.setup == setup) {
        assert_eq!(mcp.error_code(case.tool, case.args.clone()), case.code, "{} {}", case.tool, case.args);
    }
    mcp.ping();
}

#[test]
fn each_bad_input_gets_its_code_and_the_server_keeps_serving() {
    let mcp = start(shared_index());
    run_cases(&mcp, Setup::Plain);
    mcp.envelope("search_passages", json!({"query": "natural selection"}));
}

#[test]
fn cases_that_need_their_own_server() {
    let mut setups: Vec<Setup> = error_cases().iter().map(|c| c.setup).collect();
    setups.dedup();
    for setup in setups {
        match setup {
            Setup::Plain => {}
            Setup::Env(env) => {
                let mcp = start_with(shared_index(), &[], env);
                run_cases(&mcp, setup);
                // Lookups still answer under a failpoint or timeout aimed at another tool.
                if !env.iter().any(|(_, v)| v.contains("get_passage")) {
                    mcp.envelope("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"}));
                }
            }
            Setup::CurrentMoved => {
                let tmp = tempfile::tempdir().unwrap();
                let index = index_copy(tmp.path());
                let mcp = start(&index);
                mcp.envelope("search_passages", json!({"query": "natural selection"}));
                std::fs::write(index.join("CURRENT"), "gen-999999\n").unwrap();
                run_cases(&mcp, setup);
            }
        }
    }
}

#[test]
fn unknown_parameters_are_named() {
    let mcp = start(shared_index());
    let result = mcp.raw("search_passages", json!({"query": "x", "limit": 5, "sort": "asc"}));
    let message = error_body(&result)["error"].as_str().unwrap().to_owned();
    assert!(message.contains("`limit`") && message.contains("`sort`"), "{message}");
}

#[test]
fn wrong_types_name_the_parameter_and_the_expected_type() {
    let mcp = start(shared_index());
    let result = mcp.raw("get_context", json!({"passage_id": "p.ed-1859.ch1.0002", "after": true}));
    let message = error_body(&result)["error"].as_str().unwrap().to_owned();
    assert!(message.contains("`after`") && message.contains("integer"), "{message}");
}

#[test]
fn an_unknown_concept_names_close_entities() {
    let mcp = start(shared_index());
    let result = mcp.raw("find_concept_evidence", json!({"concept": "natural selektion"}));
    let message = error_body(&result)["error"].as_str().unwrap().to_owned();
    assert!(message.contains("concept.natural_selection"), "{message}");
}

/// The case table reaches every catalogue member, and names only catalogued codes.
#[test]
fn every_catalogued_code_is_reached_by_a_case() {
    let reached: Vec<&str> = error_cases().iter().map(|c| c.code).collect();
    for code in ErrorCode::ALL {
        assert!(reached.contains(&code.as_str()), "no case reaches `{}`", code.as_str());
    }
    for code in reached {
        assert!(ErrorCode::ALL.iter().any(|c| c.as_str() == code), "`{code}` is not in the catalog");
    }
}

/// A vector store damaged on disk degrades a mixed route to its other lanes,
/// with VECTOR_LANE_DISABLED; a forced vector search answers vector_lane_unavailable.
#[test]
fn a_damaged_vector_store_degrades_auto_searches_and_refuses_forced_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let mut chunks = Vec::new();
    let mut stack = vec![index.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "chunk_0.mmap") {
                chunks.push(path);
            }
        }
    }
    assert!(!chunks.is_empty(), "the test index has an embedded vector store");
    for chunk in chunks {
        std::fs::OpenOptions::new().write(true).open(chunk).unwrap().set_len(4096).unwrap();
    }
    let mcp = start(&index);
    let e = mcp.envelope("search_passages", json!({"query": "natural selection", "retrieval_mode": "hybrid"}));
    assert!(crate::common::mcp::warning_codes(&e).contains(&"VECTOR_LANE_DISABLED".to_owned()), "{}", e["warnings"]);
    assert!(!e["evidence"].as_array().unwrap().is_empty());
    assert!(!e["retrieval"]["lanes"].as_array().unwrap().iter().any(|l| l == "vector"));
    let code = mcp.error_code("search_passages", json!({"query": "natural selection", "retrieval_mode": "vector"}));
    assert_eq!(code, "vector_lane_unavailable");
    mcp.ping();
}
