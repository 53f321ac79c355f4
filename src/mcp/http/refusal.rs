//! Every answer `serve --http` gives before a request reaches MCP: one
//! closed list, each with its status, a stable code and a message that says
//! what to do. Bodies are JSON (`{"error": CODE, "message": TEXT}`) so a
//! client can tell them apart without parsing prose; none names a token,
//! a path or an internal.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use std::convert::Infallible;

pub(crate) type HttpBody = BoxBody<Bytes, Infallible>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No `Authorization: Bearer` header.
    MissingToken,
    /// A bearer token that is not in the tokens file.
    InvalidToken,
    /// An `Origin` not in `--allow-origin`.
    OriginNotAllowed,
    /// A `Host` that is not a name this server is bound to (DNS rebinding).
    HostNotAllowed,
    /// A body over the published limit.
    BodyTooLarge { limit: usize },
    /// The body did not arrive within the deadline.
    BodyTimeout,
    /// The body broke off or its chunked framing is malformed.
    BodyIncomplete,
    /// This token already has its share of calls in flight.
    TokenBusy,
    /// Every slot of the server is taken and none freed in time.
    ServerBusy,
    /// The server is draining for shutdown.
    Draining,
    /// A path other than `/mcp` and `/healthz`.
    NotFound,
    /// A session id another token opened (to this token it does not exist).
    SessionNotFound,
}

/// Seconds a client over its share is asked to wait before retrying.
pub(crate) const RETRY_AFTER_SECS: u64 = 1;

impl Refusal {
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Self::MissingToken | Self::InvalidToken => StatusCode::UNAUTHORIZED,
            Self::OriginNotAllowed | Self::HostNotAllowed => StatusCode::FORBIDDEN,
            Self::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            Self::BodyIncomplete => StatusCode::BAD_REQUEST,
            Self::TokenBusy | Self::ServerBusy => StatusCode::TOO_MANY_REQUESTS,
            Self::Draining => StatusCode::SERVICE_UNAVAILABLE,
            Self::NotFound | Self::SessionNotFound => StatusCode::NOT_FOUND,
        }
    }

    pub(crate) fn code(self) -> &'static str {
        match self {
            Self::MissingToken => "missing_token",
            Self::InvalidToken => "invalid_token",
            Self::OriginNotAllowed => "origin_not_allowed",
            Self::HostNotAllowed => "host_not_allowed",
            Self::BodyTooLarge { .. } => "body_too_large",
            Self::BodyTimeout => "body_timeout",
            Self::BodyIncomplete => "body_incomplete",
            Self::TokenBusy => "token_busy",
            Self::ServerBusy => "server_busy",
            Self::Draining => "draining",
            Self::NotFound => "not_found",
            Self::SessionNotFound => "session_not_found",
        }
    }

    pub(crate) fn message(self) -> String {
        match self {
            Self::MissingToken => "this server needs a bearer token: send `Authorization: Bearer <token>`".into(),
            Self::InvalidToken => "the bearer token is not valid here; ask the server's operator for one".into(),
            Self::OriginNotAllowed => {
                "requests from this Origin are refused; the operator can allow it with --allow-origin".into()
            }
            Self::HostNotAllowed => {
                "the Host header names no address this server serves; the operator can add it with --allow-host".into()
            }
            Self::BodyTooLarge { limit } => format!("the request body is over {limit} bytes; send a smaller request"),
            Self::BodyTimeout => "the request body did not arrive in time; resend it".into(),
            Self::BodyIncomplete => "the request body broke off or its chunked encoding is malformed; resend it".into(),
            Self::TokenBusy => {
                format!("this token has its share of calls in flight; retry in {RETRY_AFTER_SECS} s")
            }
            Self::ServerBusy => format!("the server is at capacity; retry in {RETRY_AFTER_SECS} s"),
            Self::Draining => "the server is shutting down; retry against its replacement".into(),
            Self::NotFound => "no such endpoint: MCP is served at /mcp, health at /healthz".into(),
            Self::SessionNotFound => "no such session for this token; initialize a new one".into(),
        }
    }

    pub(crate) fn body(self) -> String {
        serde_json::json!({"error": self.code(), "message": self.message()}).to_string()
    }

    pub(crate) fn response(self) -> Response<HttpBody> {
        let mut response = json_response(self.status(), self.body());
        let headers = response.headers_mut();
        match self {
            // RFC 6750: no error attribute when no token came, `invalid_token` when a wrong one did.
            Self::MissingToken => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"evident\""));
            }
            Self::InvalidToken => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"evident\", error=\"invalid_token\""),
                );
            }
            Self::TokenBusy | Self::ServerBusy | Self::Draining => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
            }
            _ => {}
        }
        // After a body that was not read to its end the connection cannot carry another request.
        if matches!(self, Self::BodyTooLarge { .. } | Self::BodyTimeout | Self::BodyIncomplete | Self::Draining) {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

pub(crate) fn full(body: impl Into<Bytes>) -> HttpBody {
    Full::new(body.into()).boxed()
}

pub(crate) fn json_response(status: StatusCode, body: String) -> Response<HttpBody> {
    let mut response = Response::new(full(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_its_status_code_and_headers() {
        let r = Refusal::MissingToken.response();
        assert_eq!(r.status(), 401);
        assert_eq!(r.headers()[header::WWW_AUTHENTICATE], "Bearer realm=\"evident\"");
        let r = Refusal::InvalidToken.response();
        assert_eq!(r.headers()[header::WWW_AUTHENTICATE], "Bearer realm=\"evident\", error=\"invalid_token\"");
        assert_eq!(Refusal::TokenBusy.response().headers()[header::RETRY_AFTER], "1");
        assert_eq!(Refusal::BodyTooLarge { limit: 5 }.status(), 413);
        assert_eq!(Refusal::OriginNotAllowed.status(), 403);
        assert_eq!(
            Refusal::BodyTooLarge { limit: 5 }.body(),
            r#"{"error":"body_too_large","message":"the request body is over 5 bytes; send a smaller request"}"#
        );
    }
}
