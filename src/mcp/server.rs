//! The rmcp handler. Tool calls run on the blocking pool (the index readers
//! are synchronous) under the tool's timeout, so calls proceed concurrently
//! and a slow or panicking call never takes the server down; searching calls
//! wait their turn first (`admission`), and that wait counts toward the timeout.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    Prompt, PromptArgument, PromptMessage, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use super::admission::Admission;
use super::config::ServeConfig;
use super::{prompt, resources};
use crate::contract::tool_entry;
use crate::surface::echo;
use crate::surface::registry::ToolSpec;
use crate::surface::{ErrorCode, ToolError};
use crate::telemetry::{CallRecord, Telemetry, digest};
use crate::tools::{self as dispatch, CurrentGeneration};

/// The protocol revisions evident implements (structured tool output needs 2025-06-18 or later).
pub(crate) const PROTOCOL_VERSIONS: &[ProtocolVersion] =
    &[ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

const INSTRUCTIONS: &str = "evident gives structured evidence from a fixed corpus: real passages with provenance, \
coverage, warnings and a structural evidence_state. It never answers; you do, citing passage ids. Start with the \
quick_start prompt, or: resolve_entity → find_concept_evidence (or search_passages) → get_context → trace_source.";

struct Inner {
    index: CurrentGeneration,
    config: ServeConfig,
    tools: Vec<Tool>,
    telemetry: Option<Telemetry>,
    admission: Admission,
}

/// Who made a call over HTTP: the label of the bearer token (`None` when the
/// server takes no tokens). The HTTP gate puts it in the request's
/// extensions; the query log records it, never the token.
#[derive(Debug, Clone)]
pub(crate) struct Caller(pub Option<String>);

#[derive(Clone)]
pub(crate) struct EvidentServer {
    inner: Arc<Inner>,
}

fn to_tool(spec: &ToolSpec) -> Tool {
    // The contract's entry is the single rendering of a tool; the wire form is built from it.
    let entry = tool_entry(spec);
    let object = |key: &str| match &entry[key] {
        Value::Object(map) => Arc::new(map.clone()),
        _ => Arc::new(serde_json::Map::new()),
    };
    // The title is the tool's own `title`; repeating it in the annotations only costs bytes.
    let annotations = ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false);
    Tool::new(spec.name, spec.description, object("inputSchema"))
        .with_title(spec.title)
        .with_raw_output_schema(object("outputSchema"))
        .with_annotations(annotations)
}

impl EvidentServer {
    pub(crate) fn new(index: CurrentGeneration, config: ServeConfig) -> Self {
        let tools = config.listed().map(to_tool).collect();
        let telemetry = config.telemetry.as_deref().and_then(Telemetry::start);
        let admission = Admission::with_slots(config.search_slots);
        Self { inner: Arc::new(Inner { index, config, tools, telemetry, admission }) }
    }

    /// The served generation and the vector lane's state (`None`: no readable generation).
    pub(crate) async fn serving_state(&self) -> Option<(String, &'static str)> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            let index = inner.index.get().ok()?;
            Some((index.generation.name.clone(), index.vector_lane_state()))
        })
        .await
        .ok()
        .flatten()
    }

    /// Runs one call to completion: the structured content, or a catalogued error.
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
    ) -> Result<dispatch::Answered, ToolError> {
        let prepared = dispatch::prepare(name, arguments)?;
        let spec = prepared.spec;
        let limit = self.inner.config.timeout(spec);
        let inner = Arc::clone(&self.inner);
        let work = async move {
            let slot = inner.admission.admit(spec).await;
            tokio::task::spawn_blocking(move || {
                let _slot = slot;
                let index = inner.index.get()?;
                dispatch::run(&index, prepared, inner.config.response_budget)
            })
            .await
        };
        match tokio::time::timeout(limit, work).await {
            Ok(Ok(result)) => result,
            Ok(Err(join)) => {
                tracing::error!(tool = spec.name, error = %join, "tool call panicked");
                Err(ToolError::new(ErrorCode::InternalError, "the call failed inside the server; see the server log"))
            }
            Err(_) => {
                tracing::warn!(tool = spec.name, limit_s = limit.as_secs_f64(), "tool call timed out");
                Err(ToolError::new(
                    ErrorCode::Timeout,
                    format!(
                        "`{}` did not finish within {:.1} s; narrow the request (filters, top_k) and retry",
                        spec.name,
                        limit.as_secs_f64()
                    ),
                ))
            }
        }
    }

    fn record(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
        started: Instant,
        outcome: &Result<dispatch::Answered, ToolError>,
        client: Option<String>,
    ) {
        let Some(telemetry) = &self.inner.telemetry else { return };
        let (tool, alias) = match crate::surface::registry::alias(name) {
            Some(a) => (a.target.to_owned(), Some(a.name.to_owned())),
            None => (echo(name), None),
        };
        telemetry.record(CallRecord {
            tool,
            alias,
            args_digest: digest(arguments),
            duration_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            evidence_state: outcome.as_ref().ok().map(|a| a.verdict.state.as_str().to_owned()),
            error_code: outcome.as_ref().err().map(|e| e.code.as_str().to_owned()),
            client,
        });
    }
}

/// Every list evident serves fits one page, so no cursor is ever handed out
/// and any cursor a client sends is invalid (-32602, as the spec asks).
fn single_page(request: Option<&PaginatedRequestParams>, method: &str) -> Result<(), McpError> {
    match request.and_then(|r| r.cursor.as_deref()) {
        None => Ok(()),
        Some(cursor) => Err(McpError::invalid_params(
            format!("invalid cursor `{}`: {method} has a single page; call it without a cursor", echo(cursor)),
            None,
        )),
    }
}

impl ServerHandler for EvidentServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("evident", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        single_page(request.as_ref(), "tools/list")?;
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let started = Instant::now();
        let arguments = request.arguments.as_ref();
        let outcome = self.call(&request.name, arguments).await;
        // rmcp's HTTP service hands the request's head to the handler; stdio has none.
        let client = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .and_then(|caller| caller.0.clone());
        self.record(&request.name, arguments, started, &outcome, client);
        Ok(match outcome {
            Ok(answered) => CallToolResult::structured(answered.content),
            // No structuredContent on errors: it would not validate against the
            // tool's outputSchema, and the TypeScript SDK rejects the whole result
            // then. The `{error, error_code}` JSON travels as the text content.
            Err(error) => {
                tracing::info!(tool = %request.name, code = error.code.as_str(), "tool call failed");
                CallToolResult::error(vec![ContentBlock::text(error.body().to_string())])
            }
        }
        .into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        single_page(request.as_ref(), "resources/list")?;
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(resources::STATUS_URI, "status")
                .with_title("Index status")
                .with_description("The serving index generation, counts, enabled lanes, model id and contract version.")
                .with_mime_type("application/json"),
            Resource::new(resources::CONTRACT_URI, "contract")
                .with_title("Tool contract")
                .with_description("The published tool surface: tools, schemas, error codes, warning codes and rules.")
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let text = match request.uri.as_str() {
            resources::STATUS_URI => {
                let inner = Arc::clone(&self.inner);
                let status = tokio::task::spawn_blocking(move || resources::status(&inner.index))
                    .await
                    .map_err(|_| McpError::internal_error("status failed", None))?;
                serde_json::to_string_pretty(&status).unwrap_or_default()
            }
            resources::CONTRACT_URI => resources::contract(),
            other => {
                return Err(McpError::resource_not_found(
                    format!(
                        "no resource `{}`; available: {}, {}",
                        echo(other),
                        resources::STATUS_URI,
                        resources::CONTRACT_URI
                    ),
                    None,
                ));
            }
        };
        let contents = ResourceContents::text(text, request.uri.clone()).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        single_page(request.as_ref(), "prompts/list")?;
        let mut topic = PromptArgument::new("topic");
        topic.description = Some("What you are researching (optional).".into());
        topic.required = Some(false);
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            prompt::NAME,
            Some(prompt::DESCRIPTION),
            Some(vec![topic]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != prompt::NAME {
            return Err(McpError::invalid_params(
                format!("no prompt `{}`; available: {}", request.name, prompt::NAME),
                None,
            ));
        }
        let topic = request.arguments.as_ref().and_then(|a| a.get("topic")).and_then(Value::as_str);
        let message = PromptMessage::new_text(Role::User, prompt::text(topic));
        Ok(GetPromptResult::new(vec![message]).with_description(prompt::DESCRIPTION).into())
    }
}

/// Serves MCP on stdin/stdout until the client closes the stream. Every
/// line passes the frame gate first (`frames`), so damaged frames are answered.
pub(crate) async fn serve(server: EvidentServer) -> Result<(), String> {
    let (reader, writer, gate) = super::frames::gate(tokio::io::stdin(), std::io::stdout());
    let running = server.serve((reader, writer)).await.map_err(|e| format!("MCP handshake failed: {e}"))?;
    running.waiting().await.map_err(|e| format!("MCP server stopped: {e}"))?;
    // Let the last answers reach stdout; the input side has ended or will not be read again.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), gate).await;
    Ok(())
}
