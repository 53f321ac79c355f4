//! `evident serve` seen by a real MCP client (rmcp over stdio), against a
//! small bilingual corpus built in the test: the tool list, every tool's
//! envelope on the wire (structured and as text), start-up, timeouts,
//! admission, resources and the vector lane's states. What each tool answers
//! is tested in process, in `tools`.
// Test helpers outside #[test] functions may panic too.

use crate::common::mcp::{SECTIONS, sections, shared_index, start, start_with, state, warning_codes};
use serde_json::{Value, json};

const TEN_TOOLS: [&str; 10] = [
    "search_passages",
    "get_passage",
    "get_context",
    "resolve_entity",
    "get_concept",
    "find_concept_evidence",
    "trace_concept",
    "compare_concepts",
    "trace_source",
    "terminology_lookup",
];

fn assert_envelope(envelope: &Value, tool: &str) {
    assert_eq!(sections(envelope), SECTIONS, "sections of {tool}");
    assert_eq!(envelope["request"]["tool"], tool);
    let evidence = envelope["evidence"].as_array().expect("evidence array");
    assert_eq!(envelope["coverage"]["evidence_n"], evidence.len());
    for item in evidence {
        let id = item["passage_id"].as_str().expect("passage id");
        assert!(id.starts_with("p."), "{id}");
        assert!(item["score"].as_f64().is_some() && item["provenance"]["source_sha256"].is_string());
    }
    let verdict = &envelope["evidence_state"];
    assert!(
        ["SUPPORTED", "PARTIALLY_SUPPORTED", "INSUFFICIENT_EVIDENCE", "CONFLICTING_EVIDENCE"]
            .contains(&verdict["state"].as_str().unwrap()),
        "{verdict}"
    );
    assert!(verdict["reasons"][0].as_str().unwrap().starts_with(verdict["rule"].as_str().unwrap()));
    assert!(verdict["signals"]["evidence_n"].is_u64());
    for w in envelope["warnings"].as_array().unwrap() {
        for key in ["code", "message", "severity", "action"] {
            assert!(w[key].is_string(), "warning without {key}: {w}");
        }
    }
}

#[test]
fn lists_exactly_the_ten_read_only_tools_with_closed_schemas() {
    let mcp = start(shared_index());
    let info = mcp.client.peer_info().expect("server info");
    let server = info.server_info.clone().expect("serverInfo");
    assert_eq!(server.name, "evident");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    let tools = mcp.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TEN_TOOLS);
    for tool in &tools {
        let a = tool.annotations.as_ref().expect("annotations");
        assert_eq!((a.read_only_hint, a.idempotent_hint, a.open_world_hint), (Some(true), Some(true), Some(false)));
        assert_eq!(tool.input_schema["additionalProperties"], json!(false), "{}", tool.name);
        assert!(tool.output_schema.is_some(), "{}", tool.name);
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 80), "{}", tool.name);
    }
    mcp.ping();
}

#[test]
fn every_tool_answers_with_the_eight_sections_in_order() {
    let mcp = start(shared_index());
    let search = mcp.envelope("search_passages", json!({"query": "natural selection"}));
    assert_envelope(&search, "search_passages");
    let first = search["evidence"][0]["passage_id"].as_str().unwrap().to_owned();
    let calls = [
        ("get_passage", json!({"passage_id": first})),
        ("get_context", json!({"passage_id": first, "before": 1, "after": 1})),
        ("resolve_entity", json!({"term": "natural selection"})),
        ("get_concept", json!({"entity_id": "concept.natural_selection"})),
        ("find_concept_evidence", json!({"concept": "concept.natural_selection"})),
        ("trace_concept", json!({"concept": "survival of the fittest"})),
        ("compare_concepts", json!({"concept_a": "natural selection", "concept_b": "methodical selection"})),
        ("trace_source", json!({"passage_id": first})),
        ("terminology_lookup", json!({"term": "natural selection"})),
    ];
    for (tool, args) in calls {
        let envelope = mcp.envelope(tool, args);
        assert_envelope(&envelope, tool);
        // Every evidence id is real: get_passage returns it.
        for item in envelope["evidence"].as_array().unwrap().iter().take(3) {
            let fetched = mcp.envelope("get_passage", json!({"passage_id": item["passage_id"]}));
            assert_eq!(fetched["evidence"][0]["text"], item["text"]);
        }
    }
}

#[test]
fn without_the_reranking_model_the_fused_order_stands_with_a_warning() {
    // A models directory with the index's embedding model and the runtime, but no reranker.
    let tmp = tempfile::tempdir().unwrap();
    let installed = evident::vector::default_models_dir();
    for part in ["onnxruntime", evident::corpus::DEFAULT_MODEL] {
        std::os::unix::fs::symlink(installed.join(part), tmp.path().join(part)).unwrap();
    }
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_MODELS_DIR", crate::common::path(tmp.path()))]);
    let fused = mcp.envelope("search_passages", json!({"query": "natural selection", "top_k": 5}));
    let e =
        mcp.envelope("search_passages", json!({"query": "natural selection", "top_k": 5, "rerank": "cross_encoder"}));
    assert_eq!(e["retrieval"]["vector_enabled"], true);
    assert_eq!(e["retrieval"]["rerank"]["status"], "unavailable");
    assert_eq!(e["retrieval"]["rerank"]["reranked"], 0);
    assert!(warning_codes(&e).contains(&"RERANK_UNAVAILABLE".to_owned()), "{}", e["warnings"]);
    let ids = |e: &Value| e["evidence"].as_array().unwrap().iter().map(|i| i["passage_id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&e), ids(&fused));
    assert_eq!(e["evidence_state"], fused["evidence_state"]);
    assert!(!e["warnings"].to_string().contains(crate::common::path(tmp.path())), "no paths reach the client");
}

#[test]
fn the_vector_lane_off_is_reported_and_the_rest_works() {
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_MODELS_DIR", "/nonexistent-models")]);
    let e = mcp.envelope("search_passages", json!({"query": "natural selection"}));
    assert_eq!(e["retrieval"]["vector_enabled"], false);
    assert!(warning_codes(&e).contains(&"VECTOR_LANE_DISABLED".to_owned()));
    assert!(!e["evidence"].as_array().unwrap().is_empty());
    assert_eq!(
        mcp.error_code("search_passages", json!({"query": "x", "retrieval_mode": "vector"})),
        "vector_lane_unavailable"
    );
}

#[test]
fn resources_and_the_quick_start_prompt() {
    use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
    let mcp = start(shared_index());
    let status = mcp.rt.block_on(mcp.client.read_resource(ReadResourceRequestParams::new("evident://status"))).unwrap();
    let text = match &status.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    };
    let status: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(status["contract_version"], 1);
    assert!(status["index"]["generation"].as_str().unwrap().starts_with("gen-"));
    assert!(status["index"]["counts"]["passages"].as_u64().unwrap() > 10);
    assert!(status["lanes"]["lexical"].as_bool().unwrap());

    let contract =
        mcp.rt.block_on(mcp.client.read_resource(ReadResourceRequestParams::new("evident://contract"))).unwrap();
    let text = match &contract.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text,
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/contract/evident_mcp_v1.json")).unwrap()
    );

    let prompt = mcp.rt.block_on(mcp.client.get_prompt(GetPromptRequestParams::new("quick_start"))).unwrap();
    let text = format!("{:?}", prompt.messages);
    for step in ["resolve_entity", "find_concept_evidence", "trace_source"] {
        assert!(text.contains(step), "{text}");
    }
}

#[test]
fn concurrent_calls_do_not_block_each_other() {
    let mcp = start(shared_index());
    let client = &mcp.client;
    let queries = ["natural selection", "struggle for existence", "geological record", "rudimentary organs"];
    let search = |q: &str| {
        let params = rmcp::model::CallToolRequestParams::new("search_passages")
            .with_arguments(json!({"query": q}).as_object().unwrap().clone());
        client.call_tool(params)
    };
    let (a, b, c, d) = mcp.rt.block_on(async {
        tokio::join!(search(queries[0]), search(queries[1]), search(queries[2]), search(queries[3]))
    });
    for (q, r) in queries.iter().zip([a, b, c, d]) {
        let r = r.unwrap();
        assert_ne!(r.is_error, Some(true), "{q}");
        let sequential = mcp.envelope("search_passages", json!({"query": q}));
        assert_eq!(r.structured_content.unwrap()["evidence"], sequential["evidence"], "{q}");
    }
}

#[test]
fn two_servers_on_one_index_both_have_the_vector_lane() {
    // Two MCP clients (say, a desktop app and an editor) start a server each on the same index.
    let first = start(shared_index());
    let second = start(shared_index());
    for mcp in [&first, &second] {
        let e = mcp.envelope("search_passages", json!({"query": "natural selection", "retrieval_mode": "vector"}));
        assert_eq!(e["retrieval"]["vector_enabled"], true);
        assert!(!e["evidence"].as_array().unwrap().is_empty());
    }
}

/// The vector lane loads in the background; a lexical or exact search does not
/// wait for it. The failpoint holds the load for ten seconds, so answers within
/// eight are ones that did not wait (the latency itself is measured by hand,
/// not timed here).
#[test]
fn lexical_and_exact_searches_do_not_wait_for_the_vector_lane_to_load() {
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_FAILPOINT", "vector-lane-load")]);
    let started = std::time::Instant::now();
    let lexical =
        mcp.envelope("search_passages", json!({"query": "struggle for existence", "retrieval_mode": "lexical"}));
    let exact = mcp.envelope("search_passages", json!({"query": "\"struggle for existence\""}));
    let waited = started.elapsed();
    assert!(waited < std::time::Duration::from_secs(8), "the searches waited {waited:?} for the vector lane");
    assert_eq!(lexical["retrieval"]["lanes"], json!(["lexical"]));
    assert!(!lexical["evidence"].as_array().unwrap().is_empty());
    // A quoted phrase and nothing else runs its phrase query once, in one lane.
    assert_eq!(exact["retrieval"]["lanes"], json!(["exact"]), "{}", exact["retrieval"]);
    assert!(
        exact["evidence"].as_array().unwrap().iter().all(|i| i["component_ranks"].as_object().unwrap().len() == 1),
        "each item found by one lane"
    );
    assert_eq!(state(&exact), "SUPPORTED", "{}", exact["evidence_state"]);
}

#[test]
fn a_slow_call_does_not_hold_up_a_fast_one() {
    // trace_concept is made two seconds slower; get_passage, sent after it, must answer first.
    let mcp = start_with(shared_index(), &[], &[("EVIDENT_FAILPOINT", "slow:trace_concept")]);
    let client = &mcp.client;
    let order = std::sync::Mutex::new(Vec::new());
    mcp.rt.block_on(async {
        let call = |name: &'static str, args: Value| {
            let order = &order;
            async move {
                let params =
                    rmcp::model::CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
                let result = client.call_tool(params).await.unwrap();
                assert_ne!(result.is_error, Some(true), "{name}");
                order.lock().unwrap().push(name);
            }
        };
        let slow = call("trace_concept", json!({"concept": "concept.struggle"}));
        let fast = async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            call("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"})).await
        };
        tokio::join!(slow, fast);
    });
    assert_eq!(*order.lock().unwrap(), ["get_passage", "trace_concept"]);
}

#[test]
fn searches_wait_for_a_slot_in_arrival_order_and_other_calls_do_not() {
    // One search slot, held two seconds by a slowed trace_concept: a search sent
    // after it waits for the slot; get_passage, sent last, answers first.
    let env = [("EVIDENT_FAILPOINT", "slow:trace_concept"), ("EVIDENT_SEARCH_SLOTS", "1")];
    let mcp = start_with(shared_index(), &[], &env);
    let client = &mcp.client;
    let order = std::sync::Mutex::new(Vec::new());
    mcp.rt.block_on(async {
        let call = |name: &'static str, args: Value, after_ms: u64| {
            let order = &order;
            async move {
                tokio::time::sleep(std::time::Duration::from_millis(after_ms)).await;
                let params =
                    rmcp::model::CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
                let result = client.call_tool(params).await.unwrap();
                assert_ne!(result.is_error, Some(true), "{name}");
                order.lock().unwrap().push(name);
            }
        };
        // The index is open and warm before the timed calls: on a loaded machine a
        // cold first call could still be starting when the search arrives.
        call("get_passage", json!({"passage_id": "p.ed-1859.ch1.0001"}), 0).await;
        order.lock().unwrap().clear();
        tokio::join!(
            call("trace_concept", json!({"concept": "concept.struggle"}), 0),
            call("search_passages", json!({"query": "natural selection", "retrieval_mode": "lexical"}), 500),
            call("get_passage", json!({"passage_id": "p.ed-1859.ch1.0002"}), 1000),
        );
    });
    assert_eq!(*order.lock().unwrap(), ["get_passage", "trace_concept", "search_passages"]);
}

#[test]
fn the_tool_list_is_compact_and_refuses_a_cursor() {
    use rmcp::model::PaginatedRequestParams;
    let mcp = start(shared_index());
    let tools = mcp.tools();
    let bytes = serde_json::to_string(&json!({ "tools": tools })).unwrap().len();
    assert!(bytes <= evident::contract::TOOLS_LIST_MAX_BYTES, "tools/list is {bytes} bytes");
    assert_eq!(bytes, evident::contract::tools_list_bytes(), "the contract measures what is sent");
    let bad = mcp.rt.block_on(
        mcp.client.list_tools(Some(PaginatedRequestParams::default().with_cursor(Some("not-a-cursor".into())))),
    );
    match bad {
        Err(rmcp::ServiceError::McpError(e)) => assert_eq!(e.code.0, -32602, "{e:?}"),
        other => panic!("an invalid cursor must be -32602: {other:?}"),
    }
}

/// Words in backticks and snake_case words of a text an agent is told to act on.
fn named_identifiers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '`'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| w.contains('_') || w.starts_with('`'))
        .map(|w| w.trim_matches('`').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Every warning action and verdict reason names only tools, parameters of the
/// answering tool (or of a tool it names), and envelope fields that exist.
#[test]
fn every_action_names_only_tools_and_parameters_that_exist() {
    use evident::surface::registry::{ALIASES, TOOLS, alias, tool};
    let mcp = start_with(shared_index(), &["--response-budget", "6000"], &[]);
    let mut calls: Vec<(&str, Value)> = crate::common::cases::good_calls();
    calls.extend([
        ("search_passages", json!({"query": "quarterly revenue phlogiston", "work": "ed-1859"})),
        ("search_passages", json!({"query": "zzzz qqqq", "retrieval_mode": "lexical"})),
        ("search_passages", json!({"query": "selection variety struggle", "top_k": 50})),
        ("resolve_entity", json!({"term": "phlogiston"})),
        ("resolve_entity", json!({"term": "variety"})),
        ("find_concept_evidence", json!({"concept": "concept.telegraph", "period": "early"})),
        ("trace_concept", json!({"concept": "survival of the fittest"})),
        ("compare_concepts", json!({"concept_a": "natural selection", "concept_b": "methodical selection"})),
        ("terminology_lookup", json!({"term": "variety"})),
        ("get_concept", json!({"entity_id": "concept.variety"})),
    ]);
    let envelope_fields: Vec<String> = {
        let schema = evident::surface::envelope::output_schema();
        let mut names = Vec::new();
        fn walk(v: &Value, out: &mut Vec<String>) {
            if let Some(props) = v.get("properties").and_then(Value::as_object) {
                out.extend(props.keys().cloned());
            }
            match v {
                Value::Object(m) => m.values().for_each(|x| walk(x, out)),
                Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        walk(&Value::Object(schema), &mut names);
        names
    };
    let mut checked = 0;
    for (name, args) in calls {
        let answering = tool(name).or_else(|| alias(name).and_then(|a| tool(a.target))).unwrap();
        let e = mcp.envelope(name, args.clone());
        let mut texts: Vec<String> =
            e["warnings"].as_array().unwrap().iter().map(|w| w["action"].as_str().unwrap().to_owned()).collect();
        texts.extend(e["evidence_state"]["reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()));
        for text in texts {
            let words = named_identifiers(&text);
            let named_tools: Vec<&str> = words.iter().filter_map(|w| tool(w).map(|t| t.name)).collect();
            for word in &words {
                let is_tool = tool(word).is_some() || ALIASES.iter().any(|a| a.name == word);
                let is_param = std::iter::once(answering.name)
                    .chain(named_tools.iter().copied())
                    .filter_map(tool)
                    .any(|t| t.params.iter().any(|p| p.name == word));
                let is_field = word.split('.').all(|part| envelope_fields.iter().any(|f| f == part));
                let is_rule = evident::surface::RULES.iter().any(|r| r.id == word);
                let is_code = evident::surface::WarningCode::ALL.iter().any(|c| c.as_str() == word)
                    || ["SUPPORTED", "PARTIALLY_SUPPORTED", "INSUFFICIENT_EVIDENCE", "CONFLICTING_EVIDENCE"]
                        .contains(&word.as_str());
                // Entity ids quoted from the corpus (all of the test corpus's start so).
                let is_entity = word.starts_with("concept.");
                assert!(
                    is_tool || is_param || is_field || is_rule || is_code || is_entity,
                    "`{word}` in \"{text}\" ({name} {args}) names no tool, parameter of {} or field",
                    answering.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "the walk checked {checked} names");
    assert!(TOOLS.iter().all(|t| !t.description.is_empty()));
}
