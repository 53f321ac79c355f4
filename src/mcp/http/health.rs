//! `GET /healthz`: for load balancers and supervisors, so it needs no token
//! and tells nothing about the corpus beyond the generation's name: whether
//! the server is up or draining, which generation it serves and the vector
//! lane's state. 200 while serving, 503 while draining or without a
//! readable generation.

use http::StatusCode;
use serde_json::json;

use super::refusal::{HttpBody, json_response};
use crate::mcp::server::EvidentServer;

pub(crate) async fn response(server: &EvidentServer, draining: bool) -> http::Response<HttpBody> {
    let state = server.serving_state().await;
    let status = match (&state, draining) {
        (_, true) => "draining",
        (None, false) => "no_index",
        (Some(_), false) => "up",
    };
    let body = json!({
        "status": status,
        "version": env!("CARGO_PKG_VERSION"),
        "generation": state.as_ref().map(|(g, _)| g.as_str()),
        "vector_lane": state.as_ref().map(|(_, v)| *v),
    });
    let code = if status == "up" { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    json_response(code, body.to_string())
}
