//! A real MCP client (rmcp) talking to `evident serve` over stdio.
#![allow(dead_code)]

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, PingRequest, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::path::Path;

use super::{path, small_corpus, write};

pub struct Mcp {
    pub rt: tokio::runtime::Runtime,
    pub client: RunningService<RoleClient, ()>,
}

/// Spawns `evident serve --index <index>` with extra arguments and environment.
pub fn start_with(index: &Path, args: &[&str], env: &[(&str, &str)]) -> Mcp {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_evident"));
    cmd.arg("serve").arg("--index").arg(path(index)).args(args);
    cmd.env_remove("EVIDENT_FAILPOINT").env_remove("EVIDENT_HIDDEN_TOOLS").env_remove("EVIDENT_RESPONSE_BUDGET");
    cmd.env_remove("EVIDENT_SEARCH_SLOTS").env_remove("EVIDENT_QUERY_CACHE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let client = rt.block_on(async {
        let transport = TokioChildProcess::builder(cmd).stderr(std::process::Stdio::null()).spawn().expect("spawn").0;
        ().serve(transport).await.expect("MCP handshake")
    });
    Mcp { rt, client }
}

pub fn start(index: &Path) -> Mcp {
    start_with(index, &[], &[])
}

impl Mcp {
    pub fn tools(&self) -> Vec<Tool> {
        self.rt.block_on(self.client.list_all_tools()).expect("tools/list")
    }

    pub fn raw(&self, name: &str, args: Value) -> CallToolResult {
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        self.rt.block_on(self.client.call_tool(params)).expect("tools/call")
    }

    /// A successful call's envelope; panics with the error otherwise.
    pub fn envelope(&self, name: &str, args: Value) -> Value {
        let result = self.raw(name, args.clone());
        assert_ne!(result.is_error, Some(true), "{name} {args} failed: {:?}", result.structured_content);
        let structured = result.structured_content.clone().expect("structuredContent");
        // The text content carries the same JSON for clients that ignore structured output.
        let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).expect("text content");
        assert_eq!(serde_json::from_str::<Value>(&text).expect("text is JSON"), structured);
        structured
    }

    /// A failed call's error code (and checks the error's shape): `isError`,
    /// no `structuredContent` (it would not match the outputSchema), and the
    /// `{"error", "error_code"}` JSON as the text content.
    pub fn error_code(&self, name: &str, args: Value) -> String {
        let result = self.raw(name, args.clone());
        assert_eq!(result.is_error, Some(true), "{name} {args} should fail: {:?}", result.structured_content);
        assert!(result.structured_content.is_none(), "{name}: an error carries no structuredContent");
        let body = error_body(&result);
        let message = body["error"].as_str().expect("error message");
        assert!(!message.is_empty());
        assert!(!message.contains("/tmp") && !message.contains("panicked") && !message.contains("SELECT"), "{message}");
        body["error_code"].as_str().expect("error_code").to_owned()
    }

    pub fn ping(&self) {
        let response = self.rt.block_on(self.client.send_request(ClientRequest::PingRequest(PingRequest::default())));
        assert!(response.is_ok(), "ping failed: {response:?}");
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.rt.block_on(self.client.close());
    }
}

/// The `{"error", "error_code"}` JSON of a failed call's text content.
pub fn error_body(result: &CallToolResult) -> Value {
    let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).expect("text content");
    serde_json::from_str(&text).expect("error text is JSON")
}

/// The small corpus plus entities that exercise resolution: a shared alias
/// ("selection" names natural and methodical selection), an entity with
/// senses ("variety"), a phrase only the 1872 edition has, and terminology.
pub fn mcp_corpus(root: &Path) {
    small_corpus(root);
    write(
        root,
        "entities.jsonl",
        concat!(
            r#"{"id":"concept.natural_selection","name":"natural selection","aliases":{"en":["natural selection","selection"],"de":["natürliche Züchtung"]},"review_status":"reviewed","relations":[{"type":"contrasts_with","target":"concept.methodical_selection"}]}"#,
            "\n",
            r#"{"id":"concept.methodical_selection","name":"methodical selection","aliases":{"en":["methodical selection","selection"]},"review_status":"reviewed"}"#,
            "\n",
            r#"{"id":"concept.variety","name":"variety","aliases":{"en":["variety","varieties"],"de":["Varietäten"]},"ambiguous":true,"senses":["taxonomic rank below species","domestic breed"]}"#,
            "\n",
            r#"{"id":"concept.struggle","name":"struggle for existence","aliases":{"en":["struggle for existence","struggle for life"],"de":["Kampf um’s Daseyn"]}}"#,
            "\n",
            r#"{"id":"concept.survival","name":"survival of the fittest","aliases":{"en":["survival of the fittest"]},"review_status":"reviewed"}"#,
            "\n",
            r#"{"id":"concept.telegraph","name":"telegraph","aliases":{"en":["telegraph"]},"definition":"A device for sending messages by wire (test definition).","review_status":"reviewed"}"#,
            "\n"
        ),
    );
    write(
        root,
        "terminology.jsonl",
        concat!(
            r#"{"entity":"concept.natural_selection","source_language":"en","source_term":"natural selection","target_language":"de","target_term":"natürliche Züchtung","review_status":"reviewed"}"#,
            "\n",
            r#"{"entity":"concept.natural_selection","source_language":"en","source_term":"natural selection","target_language":"fr","target_term":"sélection naturelle","review_status":"draft"}"#,
            "\n",
            r#"{"entity":"concept.variety","source_language":"en","source_term":"variety","target_language":"de","target_term":"Varietät","review_status":"reviewed","warnings":["German `Varietät` is narrower than English `variety`"]}"#,
            "\n"
        ),
    );
}

/// The MCP corpus built once per test binary (tests that change an index copy it).
pub fn shared_index() -> &'static Path {
    static BUILT: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
            mcp_corpus(&tmp.path().join("corpus"));
            let out = super::build(&tmp.path().join("corpus"), &tmp.path().join("index"));
            assert_eq!(out.code, 0, "{}", out.stderr);
            tmp
        })
        .path()
        .join("index")
        .leak()
}

/// A fresh copy of the built index, for tests that change it.
pub fn index_copy(into: &Path) -> std::path::PathBuf {
    let from = shared_index();
    let to = into.join("index");
    copy_dir(from, &to);
    to
}

/// A copy of a directory tree, less any `state/` directory (written by running servers).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        // The query log is written by running servers; a copy starts without it.
        if entry.file_name() == "state" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The envelope's section names, in wire order.
pub fn sections(envelope: &Value) -> Vec<String> {
    envelope.as_object().expect("object").keys().cloned().collect()
}

pub const SECTIONS: [&str; 8] =
    ["request", "resolution", "retrieval", "evidence", "coverage", "provenance", "warnings", "evidence_state"];

pub fn warning_codes(envelope: &Value) -> Vec<String> {
    envelope["warnings"].as_array().expect("warnings").iter().map(|w| w["code"].as_str().unwrap().to_owned()).collect()
}

pub fn state(envelope: &Value) -> &str {
    envelope["evidence_state"]["state"].as_str().expect("state")
}

pub fn no_args() -> Value {
    json!({})
}
