//! What every HTTP request passes before MCP sees it, in this order: the
//! `Host` (DNS rebinding) and `Origin` checks, the route, the bearer token,
//! the session's owner (`owners`), the admission (per token, then for the
//! whole server), the body (size
//! and deadline) and the JSON-RPC frame gate shared with stdio. Only then
//! does rmcp's streamable HTTP service run, with the caller's label in the
//! request's extensions for the query log. The slots a call takes (`slots`)
//! are held by its response body, so a call counts until its answer is sent.

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use super::HttpOptions;
use super::health;
use super::owners::SessionOwners;
use super::refusal::{HttpBody, Refusal, json_response};
use super::slots::{Flights, Held, Slots};
use super::tokens::Tokens;
use crate::mcp::frames::{Verdict, judge, not_json};
use crate::mcp::server::{Caller, EvidentServer};

pub(crate) const MCP_PATH: &str = "/mcp";
pub(crate) const HEALTH_PATH: &str = "/healthz";

pub(crate) struct Gate {
    options: HttpOptions,
    tokens: Option<Tokens>,
    server: EvidentServer,
    mcp: StreamableHttpService<EvidentServer, LocalSessionManager>,
    slots: Slots,
    owners: SessionOwners,
    draining: AtomicBool,
}

/// A response body that keeps the call's slots until it has been sent (or dropped).
struct HeldBody {
    inner: HttpBody,
    _held: Held,
}

impl Body for HeldBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The host part of a `Host` header (`name`, `name:port`, `[v6]:port`), lower-cased.
pub(crate) fn host_name(value: &str) -> Option<String> {
    let authority: http::uri::Authority = value.parse().ok()?;
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    Some(host.to_ascii_lowercase())
}

/// An `Origin` as the browser sends it, normalised for comparison.
pub(crate) fn normalise_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

impl Gate {
    pub(crate) fn new(
        options: HttpOptions,
        tokens: Option<Tokens>,
        server: EvidentServer,
        mcp: StreamableHttpService<EvidentServer, LocalSessionManager>,
    ) -> Self {
        let slots = Slots::new(options.per_token_concurrency, options.concurrency, options.queue_wait);
        let owners = SessionOwners::new(options.session_idle);
        Self { options, tokens, server, mcp, slots, owners, draining: AtomicBool::new(false) }
    }

    pub(crate) fn flights(&self) -> Arc<Flights> {
        self.slots.flights()
    }

    /// From now on every new request is answered 503 (`Retry-After`).
    pub(crate) fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    fn host_allowed(&self, headers: &HeaderMap, uri: &http::Uri) -> bool {
        let value =
            headers.get(header::HOST).and_then(|v| v.to_str().ok()).or_else(|| uri.authority().map(|a| a.as_str()));
        value.and_then(host_name).is_some_and(|host| self.options.allow_hosts.contains(&host))
    }

    /// `Ok(None)`: no Origin (non-browser clients). `Ok(Some)`: an allowed one, echoed in CORS headers.
    fn origin(&self, headers: &HeaderMap) -> Result<Option<HeaderValue>, Refusal> {
        let Some(value) = headers.get(header::ORIGIN) else { return Ok(None) };
        let allowed = value
            .to_str()
            .ok()
            .map(normalise_origin)
            .is_some_and(|origin| self.options.allow_origins.contains(&origin));
        if allowed { Ok(Some(value.clone())) } else { Err(Refusal::OriginNotAllowed) }
    }

    /// The caller's label: the token's, or `None` when the server takes no tokens.
    fn authenticate(&self, headers: &HeaderMap) -> Result<Option<String>, Refusal> {
        let Some(tokens) = &self.tokens else { return Ok(None) };
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        let Some(presented) = presented else { return Err(Refusal::MissingToken) };
        tokens.label_of(presented).map(Some).ok_or(Refusal::InvalidToken)
    }

    /// The body, whole, within the size limit and the deadline.
    async fn read_body(&self, headers: &HeaderMap, body: Incoming) -> Result<Bytes, Refusal> {
        let limit = self.options.max_body_bytes;
        let declared =
            headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(Refusal::BodyTooLarge { limit });
        }
        match tokio::time::timeout(self.options.body_timeout, Limited::new(body, limit).collect()).await {
            Err(_) => Err(Refusal::BodyTimeout),
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(error)) if error.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                Err(Refusal::BodyTooLarge { limit })
            }
            Ok(Err(_)) => Err(Refusal::BodyIncomplete),
        }
    }

    pub(crate) async fn handle(self: Arc<Self>, request: Request<Incoming>) -> Response<HttpBody> {
        let origin = match self.precheck(&request) {
            Ok(origin) => origin,
            Err(refusal) => return refusal.response(),
        };
        let mut response = match self.route(request).await {
            Ok(response) => response,
            Err(refusal) => refusal.response(),
        };
        if let Some(origin) = origin {
            cors(response.headers_mut(), origin);
        }
        response
    }

    fn precheck(&self, request: &Request<Incoming>) -> Result<Option<HeaderValue>, Refusal> {
        if !self.host_allowed(request.headers(), request.uri()) {
            return Err(Refusal::HostNotAllowed);
        }
        self.origin(request.headers())
    }

    async fn route(&self, request: Request<Incoming>) -> Result<Response<HttpBody>, Refusal> {
        let path = request.uri().path();
        if path == HEALTH_PATH {
            let draining = self.draining.load(Ordering::SeqCst);
            return Ok(health::response(&self.server, draining).await);
        }
        if path != MCP_PATH && path != "/mcp/" {
            return Err(Refusal::NotFound);
        }
        if request.method() == Method::OPTIONS {
            // A CORS preflight carries no token; the allowed origin gets its headers in `handle`.
            let mut response = Response::new(super::refusal::full(Bytes::new()));
            *response.status_mut() = StatusCode::NO_CONTENT;
            return Ok(response);
        }
        if self.draining.load(Ordering::SeqCst) {
            return Err(Refusal::Draining);
        }
        let label = self.authenticate(request.headers())?;
        let session = session_id(request.headers());
        if session.as_deref().is_some_and(|s| !self.owners.allows(s, label.as_deref())) {
            return Err(Refusal::SessionNotFound);
        }
        let (mut parts, body) = request.into_parts();
        parts.extensions.insert(Caller(label.clone()));
        if parts.method != Method::POST {
            // GET (the server's event stream) and DELETE (end a session) carry no call.
            let ends_session = parts.method == Method::DELETE;
            let response = self.mcp.handle(Request::from_parts(parts, body)).await;
            if let (true, Some(session), true) = (ends_session, &session, response.status().is_success()) {
                self.owners.closed(session);
            }
            return Ok(response);
        }
        let held = self.slots.admit(label.as_deref()).await?;
        let bytes = self.read_body(&parts.headers, body).await?;
        if let Some(answer) = frame_problem(&bytes) {
            return Ok(answer);
        }
        let response = self.mcp.handle(Request::from_parts(parts, http_body_util::Full::new(bytes))).await;
        if let (None, Some(opened)) = (&session, session_id(response.headers())) {
            self.owners.opened(&opened, label.as_deref());
        }
        let (parts, inner) = response.into_parts();
        Ok(Response::from_parts(parts, HeldBody { inner, _held: held }.boxed()))
    }
}

fn session_id(headers: &HeaderMap) -> Option<String> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// The same frame gate as stdio: a body that is not one JSON value gets
/// `-32700` (HTTP 400), a malformed `tools/call` `-32602` with its id, and a
/// JSON value that is no JSON-RPC message `-32600` (HTTP 400).
fn frame_problem(body: &[u8]) -> Option<Response<HttpBody>> {
    match judge(body) {
        // A blank line is nothing on stdio; an empty body is no JSON value.
        Verdict::Skip => Some(json_response(StatusCode::BAD_REQUEST, not_json().to_string())),
        Verdict::Answer(answer) => {
            let status = if answer["id"].is_null() { StatusCode::BAD_REQUEST } else { StatusCode::OK };
            Some(json_response(status, answer.to_string()))
        }
        Verdict::Forward => {
            if serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(body).is_ok() {
                return None;
            }
            let id = serde_json::from_slice::<serde_json::Value>(body).ok().and_then(|v| v.get("id").cloned());
            let answer = serde_json::json!({"jsonrpc": "2.0", "id": id.unwrap_or(serde_json::Value::Null),
                "error": {"code": -32600, "message": "invalid request: the body is not a JSON-RPC 2.0 request, notification or response evident understands (batches are not part of MCP)"}});
            Some(json_response(StatusCode::BAD_REQUEST, answer.to_string()))
        }
    }
}

fn cors(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE, OPTIONS"));
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(
            "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
        ),
    );
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("mcp-session-id"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_taken_from_every_form_of_the_header() {
        assert_eq!(host_name("127.0.0.1:8731").as_deref(), Some("127.0.0.1"));
        assert_eq!(host_name("LocalHost").as_deref(), Some("localhost"));
        assert_eq!(host_name("[::1]:80").as_deref(), Some("::1"));
        assert_eq!(host_name("evil.example:1/x"), None);
        assert_eq!(normalise_origin("HTTPS://App.Example.org/"), "https://app.example.org");
    }

    fn status_and_body(response: Response<HttpBody>) -> (u16, serde_json::Value) {
        let status = response.status().as_u16();
        let bytes = futures_free_collect(response.into_body());
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    fn futures_free_collect(body: HttpBody) -> Bytes {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(body.collect()).unwrap().to_bytes()
    }

    #[test]
    fn bodies_that_are_no_json_rpc_message_are_answered_here() {
        let (status, body) = status_and_body(frame_problem(b"{not json").unwrap());
        assert_eq!((status, body["error"]["code"].as_i64()), (400, Some(-32700)));
        assert!(body["id"].is_null());
        let (status, body) = status_and_body(frame_problem(b"").unwrap());
        assert_eq!((status, body["error"]["code"].as_i64()), (400, Some(-32700)));
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#;
        let (status, body) = status_and_body(frame_problem(call).unwrap());
        assert_eq!((status, body["error"]["code"].as_i64(), body["id"].as_i64()), (200, Some(-32602), Some(7)));
        let (status, body) = status_and_body(frame_problem(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap());
        assert_eq!((status, body["error"]["code"].as_i64()), (400, Some(-32600)));
        let (_, body) = status_and_body(frame_problem(br#"{"id":3,"method":"ping"}"#).unwrap());
        assert_eq!((body["error"]["code"].as_i64(), body["id"].as_i64()), (Some(-32600), Some(3)));
        assert!(frame_problem(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_none());
    }
}
