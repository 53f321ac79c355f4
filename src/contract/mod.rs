//! The published tool contract: `contract/evident_mcp_v<N>.json` and
//! `contract/TOOLS.md`, both generated from the tool registry and the other
//! single sources (error catalog, warnings, sufficiency and routing rules).
//! Generation is deterministic: no clock, no environment, no index.

pub mod diff;
pub(crate) mod render;

use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use crate::surface::envelope::{SECTIONS, compact_output_schema, output_schema};
use crate::surface::registry::{ALIASES, ToolSpec, VISIBLE_TOOL_CAP, default_visible};
use crate::surface::{
    DEFAULT_RESPONSE_BUDGET, ErrorCode, MAX_LIST_ITEMS, MAX_QUERY_CHARS, MAX_QUERY_PHRASES, MAX_QUERY_WORDS,
    MAX_RESPONSE_BUDGET, MAX_STRING_CHARS, MAX_SUGGESTIONS, SNIPPET_CHARS, WarningCode,
};

/// Bump on any breaking change (a tool or parameter renamed or removed, a
/// parameter made required, an error code removed); `contract write` then
/// publishes a new file beside the old ones.
pub const CONTRACT_VERSION: u32 = 1;

/// The contract this binary was built with; the server's start-up self-test
/// compares the live registry with it, so a surface change without
/// `evident contract write` cannot be served.
pub(crate) const EMBEDDED_CONTRACT: &str = include_str!("../../contract/evident_mcp_v1.json");

pub fn json_file_name(version: u32) -> String {
    format!("evident_mcp_v{version}.json")
}

pub(crate) const TOOLS_MD: &str = "TOOLS.md";

/// Most bytes of the whole `tools/list` result (every listed tool with its
/// schemas): what a client pays on every turn when it hands tools to a model.
pub const TOOLS_LIST_MAX_BYTES: usize = 16_000;

/// One tool as `tools/list` shows it and the contract records it. The
/// `outputSchema` is the compact one; the described envelope schema is the
/// contract's `envelope.schema`.
pub(crate) fn tool_entry(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "inputSchema": Value::Object(spec.input_schema()),
        "outputSchema": Value::Object(compact_output_schema()),
        "annotations": spec.annotations(),
    })
}

/// The whole contract as JSON.
pub fn contract() -> Value {
    let tools: Vec<Value> = default_visible()
        .map(|spec| {
            let mut entry = tool_entry(spec);
            if let Value::Object(map) = &mut entry {
                map.insert("not_for".into(), json!(spec.not_for));
                map.insert("timeout_secs".into(), json!(spec.timeout_secs));
            }
            entry
        })
        .collect();
    let mut codes: Vec<&ErrorCode> = ErrorCode::ALL.iter().collect();
    codes.sort_by_key(|c| c.as_str());
    let errors: Vec<Value> = codes.iter().map(|c| json!({"code": c.as_str(), "meaning": c.meaning()})).collect();
    let mut warnings: Vec<&WarningCode> = WarningCode::ALL.iter().collect();
    warnings.sort_by_key(|w| w.as_str());
    let warnings: Vec<Value> = warnings
        .iter()
        .map(|w| json!({"code": w.as_str(), "severity": w.severity(), "meaning": w.meaning()}))
        .collect();
    let aliases: Vec<Value> = ALIASES
        .iter()
        .map(|a| {
            let forced: Map<String, Value> = a.forced.iter().map(|(k, v)| ((*k).to_owned(), v.to_value())).collect();
            let renamed: Map<String, Value> = a.renamed.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
            json!({"name": a.name, "target": a.target, "forced_arguments": forced, "renamed_arguments": renamed, "use_instead": a.use_instead})
        })
        .collect();
    json!({
        "contract": "evident-mcp",
        "contract_version": CONTRACT_VERSION,
        "server_name": "evident",
        "visible_tool_cap": VISIBLE_TOOL_CAP,
        "tools": tools,
        "error_codes": errors,
        "envelope": {"sections": SECTIONS, "schema": Value::Object(output_schema())},
        "warning_codes": warnings,
        "evidence_state_rules": crate::surface::RULES,
        "routing_rules": crate::routing::RULES,
        "aliases": aliases,
        "limits": {
            "max_string_chars": MAX_STRING_CHARS,
            "max_query_chars": MAX_QUERY_CHARS,
            "max_list_items": MAX_LIST_ITEMS,
            "default_response_budget_bytes": DEFAULT_RESPONSE_BUDGET,
            "max_response_budget_bytes": MAX_RESPONSE_BUDGET,
            "snippet_chars": SNIPPET_CHARS,
            "max_suggestions": MAX_SUGGESTIONS,
            "max_query_phrases": MAX_QUERY_PHRASES,
            "max_query_words": MAX_QUERY_WORDS,
            "tools_list_max_bytes": TOOLS_LIST_MAX_BYTES,
        },
    })
}

/// The contract file's bytes: pretty JSON (keys in code order) and a final newline.
pub fn contract_bytes() -> String {
    let mut text = serde_json::to_string_pretty(&contract()).unwrap_or_default();
    text.push('\n');
    text
}

/// Every file `contract write` produces, with its bytes.
pub(crate) fn generated_files() -> Vec<(String, String)> {
    vec![(json_file_name(CONTRACT_VERSION), contract_bytes()), (TOOLS_MD.to_owned(), render::tools_md(&contract()))]
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ContractError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the contract is out of date:\n{0}\nrun `evident contract write` and commit the result")]
    Drift(String),
    #[error("{0}")]
    Invalid(String),
}

/// Writes the generated files into `dir`. Earlier versions' files are left as published.
pub(crate) fn write(dir: &Path) -> Result<Vec<PathBuf>, ContractError> {
    std::fs::create_dir_all(dir).map_err(|source| ContractError::Io { path: dir.to_owned(), source })?;
    let mut written = Vec::new();
    for (name, bytes) in generated_files() {
        let path = dir.join(&name);
        std::fs::write(&path, bytes).map_err(|source| ContractError::Io { path: path.clone(), source })?;
        written.push(path);
    }
    Ok(written)
}

/// Compares the files in `dir` with what the code generates; the error
/// carries a readable diff and, for the JSON, the change classification.
pub(crate) fn check(dir: &Path) -> Result<(), ContractError> {
    let mut report = String::new();
    for (name, expected) in generated_files() {
        let path = dir.join(&name);
        let actual = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ContractError::Io { path, source }),
        };
        if actual != expected {
            report.push_str(&format!("--- {name} (committed)\n+++ {name} (generated)\n"));
            report.push_str(&diff::line_diff(&actual, &expected));
            if name.ends_with(".json")
                && let Ok(old) = serde_json::from_str::<Value>(&actual)
            {
                for change in diff::classify(&old, &contract()) {
                    report.push_str(&format!("{change}\n"));
                }
            }
        }
    }
    check_cap()?;
    check_tools_list_size()?;
    if report.is_empty() { Ok(()) } else { Err(ContractError::Drift(report)) }
}

/// The `tools/list` result of the default visible set, as compact JSON.
pub fn tools_list_bytes() -> usize {
    let tools: Vec<Value> = default_visible().map(tool_entry).collect();
    json!({ "tools": tools }).to_string().len()
}

/// The `tools/list` size limit, as the drift check and a test enforce it.
pub(crate) fn check_tools_list_size() -> Result<(), ContractError> {
    let bytes = tools_list_bytes();
    if bytes > TOOLS_LIST_MAX_BYTES {
        return Err(ContractError::Invalid(format!(
            "tools/list is {bytes} bytes; the limit is {TOOLS_LIST_MAX_BYTES} (shorten descriptions or schemas)"
        )));
    }
    Ok(())
}

/// The visible-tool cap, as the drift check and start-up enforce it.
pub(crate) fn check_cap() -> Result<(), ContractError> {
    let visible = default_visible().count();
    if visible > VISIBLE_TOOL_CAP {
        return Err(ContractError::Invalid(format!(
            "{visible} tools are visible by default; the cap is {VISIBLE_TOOL_CAP} (hide tools or raise the cap deliberately)"
        )));
    }
    Ok(())
}
