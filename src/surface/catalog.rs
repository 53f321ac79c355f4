//! The closed error catalog: every error a tool call can answer with. The
//! enum is the single source; its `code` strings are published in the
//! contract and never change meaning (removing or renaming one is breaking).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No tool (or deprecated alias) has this name.
    UnknownTool,
    /// An argument the tool does not define.
    UnknownParameter,
    /// A required argument is absent.
    MissingParameter,
    /// An argument has the wrong type or a value outside its allowed set.
    InvalidArgument,
    /// A number outside its allowed range.
    OutOfRange,
    /// A string that is empty or only white space.
    EmptyArgument,
    /// A string over the length limit.
    ArgumentTooLong,
    /// A query with more quoted phrases or words than one request may carry.
    QueryTooComplex,
    /// No passage has this id.
    PassageNotFound,
    /// No entity has this id (or the term resolves to none).
    EntityNotFound,
    /// The period is not one of the corpus's configured periods.
    PeriodNotFound,
    /// No work of the corpus has this id.
    WorkNotFound,
    /// No passage of the corpus is in this language.
    LanguageNotFound,
    /// The index cannot be opened or read.
    IndexUnavailable,
    /// `retrieval_mode: vector` was forced but the vector lane is off.
    VectorLaneUnavailable,
    /// The call ran past its time limit.
    Timeout,
    /// A paging cursor that was altered, or belongs to another request or index generation.
    InvalidCursor,
    /// An unexpected failure inside the server; details are in its log.
    InternalError,
}

impl ErrorCode {
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::UnknownTool,
        ErrorCode::UnknownParameter,
        ErrorCode::MissingParameter,
        ErrorCode::InvalidArgument,
        ErrorCode::OutOfRange,
        ErrorCode::EmptyArgument,
        ErrorCode::ArgumentTooLong,
        ErrorCode::QueryTooComplex,
        ErrorCode::PassageNotFound,
        ErrorCode::EntityNotFound,
        ErrorCode::PeriodNotFound,
        ErrorCode::WorkNotFound,
        ErrorCode::LanguageNotFound,
        ErrorCode::IndexUnavailable,
        ErrorCode::VectorLaneUnavailable,
        ErrorCode::Timeout,
        ErrorCode::InvalidCursor,
        ErrorCode::InternalError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::UnknownParameter => "unknown_parameter",
            ErrorCode::MissingParameter => "missing_parameter",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::OutOfRange => "out_of_range",
            ErrorCode::EmptyArgument => "empty_argument",
            ErrorCode::ArgumentTooLong => "argument_too_long",
            ErrorCode::QueryTooComplex => "query_too_complex",
            ErrorCode::PassageNotFound => "passage_not_found",
            ErrorCode::EntityNotFound => "entity_not_found",
            ErrorCode::PeriodNotFound => "period_not_found",
            ErrorCode::WorkNotFound => "work_not_found",
            ErrorCode::LanguageNotFound => "language_not_found",
            ErrorCode::IndexUnavailable => "index_unavailable",
            ErrorCode::VectorLaneUnavailable => "vector_lane_unavailable",
            ErrorCode::Timeout => "timeout",
            ErrorCode::InvalidCursor => "invalid_cursor",
            ErrorCode::InternalError => "internal_error",
        }
    }

    /// What the code means, for the published catalog.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            ErrorCode::UnknownTool => "No tool or deprecated alias has this name; call tools/list.",
            ErrorCode::UnknownParameter => "The arguments contain a parameter the tool does not define.",
            ErrorCode::MissingParameter => "A required parameter is absent.",
            ErrorCode::InvalidArgument => "A parameter has the wrong type or a value outside its allowed set.",
            ErrorCode::OutOfRange => "A number is outside the parameter's range.",
            ErrorCode::EmptyArgument => "A string parameter is empty or only white space.",
            ErrorCode::ArgumentTooLong => "A string parameter is longer than its limit.",
            ErrorCode::QueryTooComplex => "The query has more quoted phrases or words than the limits allow.",
            ErrorCode::PassageNotFound => "No passage has this id in the serving index generation.",
            ErrorCode::EntityNotFound => "No entity has this id, or the term resolves to no entity.",
            ErrorCode::PeriodNotFound => "The period is not one of the corpus's configured periods.",
            ErrorCode::WorkNotFound => "No work of the corpus has this id.",
            ErrorCode::LanguageNotFound => "No passage of the corpus is in this language.",
            ErrorCode::IndexUnavailable => "The index cannot be opened or read; build it with `evident index build`.",
            ErrorCode::VectorLaneUnavailable => {
                "retrieval_mode `vector` was forced but the vector lane is disabled or failed."
            }
            ErrorCode::Timeout => "The call ran past the tool's time limit; narrow it and retry.",
            ErrorCode::InvalidCursor => "The cursor was altered, or belongs to another request or index generation.",
            ErrorCode::InternalError => "An unexpected failure inside the server; details are in its log.",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: a catalogued code and a message for the caller. Messages
/// never carry paths, SQL or panic text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: ErrorCode,
    pub(crate) message: String,
}

impl ToolError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// The structured body of an `isError: true` result.
    pub(crate) fn body(&self) -> serde_json::Value {
        serde_json::json!({ "error": self.message, "error_code": self.code.as_str() })
    }
}

/// Caller text quoted in a message, cut to a bounded length so a message never
/// repeats a 2,000-character argument back.
pub(crate) fn echo(text: &str) -> String {
    const MAX_ECHO_CHARS: usize = 80;
    text.chars().take(MAX_ECHO_CHARS).collect()
}

impl From<crate::Error> for ToolError {
    /// Index-side failures, with internals logged and kept out of the message.
    fn from(error: crate::Error) -> Self {
        use crate::Error;
        if error.is_index_unreadable() {
            tracing::error!(%error, "index unavailable");
            return ToolError::new(
                ErrorCode::IndexUnavailable,
                "the index cannot be read; check the server log and rebuild with `evident index build`",
            );
        }
        match &error {
            Error::VectorLaneUnavailable(_) => {
                tracing::warn!(%error, "vector lane failed");
                ToolError::new(
                    ErrorCode::VectorLaneUnavailable,
                    "the vector lane is unavailable; use retrieval_mode `auto`, `lexical` or `hybrid`",
                )
            }
            _ => {
                tracing::error!(%error, "tool call failed");
                ToolError::new(ErrorCode::InternalError, "the call failed inside the server; see the server log")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_code_once_and_codes_are_snake_case() {
        let mut codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        for code in &codes {
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{code}");
            let serialized = serde_json::to_value(ErrorCode::ALL.iter().find(|c| c.as_str() == *code)).unwrap();
            assert_eq!(serialized, serde_json::json!(code));
        }
        let n = codes.len();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }

    /// Every variant of a unit enum, as its derived JSON Schema lists them.
    fn variants<T: schemars::JsonSchema>() -> std::collections::BTreeSet<String> {
        fn collect(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
            match v {
                serde_json::Value::Object(map) => {
                    if let Some(c) = map.get("const").and_then(|c| c.as_str()) {
                        out.insert(c.to_owned());
                    }
                    for e in map.get("enum").and_then(|e| e.as_array()).into_iter().flatten() {
                        out.extend(e.as_str().map(str::to_owned));
                    }
                    map.values().for_each(|x| collect(x, out));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|x| collect(x, out)),
                _ => {}
            }
        }
        let mut out = std::collections::BTreeSet::new();
        collect(&serde_json::to_value(schemars::schema_for!(T)).unwrap(), &mut out);
        out
    }

    #[test]
    fn all_lists_every_variant_of_the_enum() {
        let listed: std::collections::BTreeSet<String> = ErrorCode::ALL.iter().map(|c| c.as_str().to_owned()).collect();
        assert_eq!(listed, variants::<ErrorCode>());
    }

    #[test]
    fn internal_errors_do_not_leak_paths() {
        let e = ToolError::from(crate::Error::IndexMissing("/secret/path".into()));
        assert_eq!(e.code, ErrorCode::IndexUnavailable);
        assert!(!e.message.contains("/secret"));
    }
}
