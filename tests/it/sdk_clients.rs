//! The official MCP TypeScript SDK (`@modelcontextprotocol/sdk`, pinned in
//! tests/clients/package.json; install with `npm ci --prefix tests/clients`)
//! against `evident serve`: it lists the tools, calls every registered name,
//! and for every catalogued error code checks that the SDK *returns* the
//! result (rather than throwing on a schema mismatch) with the code readable.
//! Over HTTP (`serve --http`) the TypeScript SDK and the Python SDK (`mcp`,
//! pinned in tests/clients/requirements.txt, installed in tests/clients/.venv)
//! do the same through their streamable HTTP clients, the Python one in both
//! lifecycles (the handshake with sessions, and 2026-07-28's discover).
// Test helpers outside #[test] functions may panic too.

use crate::common::cases::{Setup, error_cases, good_calls};
use crate::common::mcp::{index_copy, shared_index};
use crate::common::path;
use evident::surface::ErrorCode;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("clients")
}

#[derive(Clone, Copy, Debug)]
enum Sdk {
    TypeScript,
    Python,
}

/// Runs one plan with an SDK's client script and returns its report; every step must pass.
fn report(sdk: Sdk, plan: &Value) -> Value {
    let dir = clients_dir();
    let mut command = match sdk {
        Sdk::TypeScript => {
            assert!(
                dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
                "the TypeScript SDK is not installed: run `npm ci --prefix tests/clients` (Node.js 20 or newer)"
            );
            let mut node = std::process::Command::new("node");
            node.arg(dir.join("sdk_check.mjs"));
            node
        }
        Sdk::Python => {
            let python = dir.join(".venv/bin/python");
            assert!(
                python.is_file(),
                "the Python SDK is not installed: run `python3 -m venv tests/clients/.venv && \
                 tests/clients/.venv/bin/pip install -r tests/clients/requirements.txt`"
            );
            let mut python = std::process::Command::new(python);
            python.arg(dir.join("sdk_check.py"));
            python
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let plan_file = tmp.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let out = command.arg(&plan_file).output().expect("the SDK client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{sdk:?} client failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(stdout.trim()).expect("a JSON report");
    let failed: Vec<&Value> = report["steps"].as_array().unwrap().iter().filter(|s| s["pass"] != true).collect();
    assert!(failed.is_empty(), "steps failed under the {sdk:?} SDK: {failed:#?}");
    report
}

/// Runs one plan with the TypeScript SDK over stdio and returns its report.
fn run_plan(index: &Path, env: &[(&str, &str)], steps: Vec<Value>) -> Value {
    let env: serde_json::Map<String, Value> = env.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
    let plan = json!({
        "command": env!("CARGO_BIN_EXE_evident"),
        "args": ["serve", "--index", path(index), "--no-telemetry"],
        "env": env,
        "unset": ["EVIDENT_FAILPOINT", "EVIDENT_HIDDEN_TOOLS", "EVIDENT_RESPONSE_BUDGET"],
        "steps": steps,
    });
    report(Sdk::TypeScript, &plan)
}

fn tool_names(report: &Value) -> Vec<&str> {
    report["tool_names"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect()
}

fn call(tool: &str, args: &Value, expect: &str, code: &str) -> Value {
    json!({"kind": "call", "tool": tool, "arguments": args, "expect": expect, "code": code})
}

#[test]
fn the_typescript_sdk_lists_and_calls_every_tool() {
    let mut steps = vec![json!({"kind": "list"}), json!({"kind": "list_cursor", "cursor": "not-a-cursor"})];
    steps.extend(good_calls().iter().map(|(tool, args)| call(tool, args, "ok", "")));
    let report = run_plan(shared_index(), &[], steps);
    let names = tool_names(&report);
    let visible: Vec<&str> = evident::surface::registry::default_visible().map(|t| t.name).collect();
    assert_eq!(names, visible);
    let bytes = report["tools_list_bytes"].as_u64().unwrap() as usize;
    assert!(bytes <= evident::contract::TOOLS_LIST_MAX_BYTES, "tools/list is {bytes} bytes");
}

#[test]
fn the_typescript_sdk_reads_every_catalogued_error() {
    let cases = error_cases();
    let mut reached = Vec::new();
    let mut setups: Vec<Setup> = cases.iter().map(|c| c.setup).collect();
    setups.dedup();
    for setup in setups {
        let of_setup = cases.iter().filter(|c| c.setup == setup);
        // Hosts list tools first; the SDK then validates every result against the listed outputSchema.
        let mut steps: Vec<Value> = vec![json!({"kind": "list"})];
        let tmp = tempfile::tempdir().unwrap();
        let (index, env): (PathBuf, &[(&str, &str)]) = match setup {
            Setup::Plain => (shared_index().to_owned(), &[]),
            Setup::Env(env) => (shared_index().to_owned(), env),
            Setup::CurrentMoved => {
                let index = index_copy(tmp.path());
                steps.push(call("search_passages", &json!({"query": "natural selection"}), "ok", ""));
                let current = index.join("CURRENT");
                steps.push(json!({"kind": "write", "path": path(&current), "text": "gen-999999\n"}));
                (index, &[])
            }
        };
        for case in of_setup {
            steps.push(call(case.tool, &case.args, "error", case.code));
            reached.push(case.code);
        }
        run_plan(&index, env, steps);
    }
    for code in ErrorCode::ALL {
        assert!(reached.contains(&code.as_str()), "the SDK test does not reach `{}`", code.as_str());
    }
}

#[test]
fn both_sdks_list_and_call_every_tool_and_read_a_tool_error_over_http() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("tokens");
    let token = crate::http::new_token(&file, "sdk");
    let server = crate::common::http::HttpServer::start_binary(
        Path::new(env!("CARGO_BIN_EXE_evident")),
        shared_index(),
        &["--no-telemetry", "--tokens", path(&file)],
        &[],
    );
    let mut steps = vec![json!({"kind": "list"}), json!({"kind": "list_cursor", "cursor": "not-a-cursor"})];
    steps.extend(good_calls().iter().map(|(tool, args)| call(tool, args, "ok", "")));
    let errors = error_cases();
    let plain: Vec<_> = errors.iter().filter(|c| c.setup == Setup::Plain).collect();
    assert!(plain.len() >= 5, "the plain error cases reach several codes");
    steps.extend(plain.iter().map(|c| call(c.tool, &c.args, "error", c.code)));
    let url = format!("http://{}/mcp", server.addr);
    let headers = json!({"Authorization": format!("Bearer {token}")});
    let visible: Vec<&str> = evident::surface::registry::default_visible().map(|t| t.name).collect();
    let cases = [
        (Sdk::TypeScript, "initialize", "2025-11-25"),
        (Sdk::Python, "initialize", "2025-11-25"),
        (Sdk::Python, "discover", "2026-07-28"),
    ];
    for (sdk, lifecycle, version) in cases {
        let plan = json!({"url": url, "headers": headers, "lifecycle": lifecycle, "steps": steps});
        let report = report(sdk, &plan);
        assert_eq!(tool_names(&report), visible, "{sdk:?} {lifecycle}");
        assert_eq!(report["protocol_version"], version, "{sdk:?} {lifecycle}");
    }
}
